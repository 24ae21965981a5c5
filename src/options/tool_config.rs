//! Per-tool configuration of built-in tools (`toolConfig`), which the CLI
//! reads from its environment.

/// Settings for built-in tools the CLI otherwise hardcodes.
///
/// ```
/// use claude_agent::options::{CommandContext, Options, PreviewFormat, ToolConfig};
/// let opts = Options::new().tool_config(ToolConfig::new().question_preview_format(PreviewFormat::Html));
/// let cmd = opts.to_command("claude".into(), &CommandContext::default())?;
/// assert!(cmd.env.iter().any(|(k, v)| k == "CLAUDE_CODE_QUESTION_PREVIEW_FORMAT" && v == "html"));
/// # Ok::<(), claude_agent::options::OptionsError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolConfig {
    /// `askUserQuestion.previewFormat`: what the `AskUserQuestion` tool asks
    /// the model to put in an option's `preview`
    /// (`CLAUDE_CODE_QUESTION_PREVIEW_FORMAT`); unset keeps the CLI's
    /// default, Markdown.
    pub question_preview_format: Option<PreviewFormat>,
}

impl ToolConfig {
    /// Nothing configured: every tool keeps the CLI's defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// The content format of `AskUserQuestion` option previews.
    pub fn question_preview_format(mut self, format: PreviewFormat) -> Self {
        self.question_preview_format = Some(format);
        self
    }
}

/// Content format of an `AskUserQuestion` option's `preview`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PreviewFormat {
    /// Markdown or ASCII, shown in a monospace box (the CLI's default).
    Markdown,
    /// Self-contained HTML fragments, for hosts that render the web.
    Html,
}

impl PreviewFormat {
    /// The CLI's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Markdown => "markdown",
            Self::Html => "html",
        }
    }
}

/// The variable that carries [`ToolConfig::question_preview_format`].
pub(crate) const QUESTION_PREVIEW_FORMAT: &str = "CLAUDE_CODE_QUESTION_PREVIEW_FORMAT";
