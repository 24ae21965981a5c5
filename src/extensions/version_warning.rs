//! The `verbatim_prompts` version warning: a CLI older than 2.1.248
//! ignores `client_composed` and still expands `@path` and slash commands.

use super::{Extension, Started};
use crate::Result;

/// The first Claude Code version that honours `client_composed`.
const VERBATIM_SINCE: (u32, u32, u32) = (2, 1, 248);

/// Warns (in the log; the connect goes on) when verbatim prompts meet a
/// CLI that predates them.
pub(crate) struct VersionWarningExtension;

impl Extension for VersionWarningExtension {
    fn name(&self) -> &str {
        "version_warning"
    }

    async fn post_start(&self, started: &Started<'_>) -> Result<()> {
        if !started.options().verbatim_prompts {
            return Ok(());
        }
        if let Ok(Some(version)) = started.server_info().map(|i| i.claude_code_version) {
            if version_before(&version, VERBATIM_SINCE) {
                tracing::warn!(
                    cli_version = version,
                    "verbatim_prompts is on but this Claude Code predates 2.1.248 and ignores \
                     client_composed: prompts are still expanded"
                );
            }
        }
        Ok(())
    }
}

/// Whether a dotted `major.minor.patch` version (suffixes ignored) is
/// before `min`; an unparsable version is not.
fn version_before(version: &str, min: (u32, u32, u32)) -> bool {
    let mut parts = version.trim().split(['.', '-', ' ']).map(str::parse::<u32>);
    match (parts.next(), parts.next(), parts.next()) {
        (Some(Ok(a)), Some(Ok(b)), Some(Ok(c))) => (a, b, c) < min,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::version_before;

    #[test]
    fn versions_before_client_composed_are_detected() {
        assert!(version_before("2.1.247", (2, 1, 248)));
        assert!(version_before("1.9.999", (2, 1, 248)));
        assert!(!version_before("2.1.248", (2, 1, 248)));
        assert!(!version_before("2.1.332 (Claude Code)", (2, 1, 248)));
        assert!(!version_before("garbage", (2, 1, 248)));
    }
}
