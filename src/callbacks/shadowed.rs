//! The warning the official SDKs give when a `can_use_tool` callback is
//! shadowed: options that make the CLI approve some (or every) tool call
//! before it would ask the callback (Python's `CanUseToolShadowedWarning`,
//! TypeScript's `CLAUDE_SDK_CAN_USE_TOOL_SHADOWED` process warning).
//!
//! Advisory only: shadowing can be intended (a callback meant for the
//! tools outside `allowed_tools`). Allow rules from settings files can
//! shadow the callback too; they are not visible here.

use crate::options::{Options, PermissionMode, Skills};

/// The `tracing` target the warning is logged under, so it can be
/// filtered out on its own.
pub const SHADOWED_TARGET: &str = "claude_agent::can_use_tool_shadowed";

/// Why a `can_use_tool` callback would not be asked, for these options;
/// `None` when nothing shadows it. The same conditions as Python's SDK:
/// `bypassPermissions` shadows every call; an `allowed_tools` entry that
/// allows a whole tool (`Read`, `Read()`, `Read(*)`) shadows that tool;
/// [`Skills::All`] allows `Skill`.
///
/// ```
/// use claude_agent::options::Options;
/// use claude_agent::callbacks::can_use_tool_shadowed;
///
/// let o = Options::new().allowed_tools(["Read", "Bash(ls:*)"]);
/// let warning = can_use_tool_shadowed(&o).unwrap();
/// assert!(warning.contains("will not be invoked for: Read."));
/// assert!(can_use_tool_shadowed(&Options::new().allowed_tools(["Bash(ls:*)"])).is_none());
/// ```
pub fn can_use_tool_shadowed(options: &Options) -> Option<String> {
    if options.permission_mode == Some(PermissionMode::BypassPermissions) {
        return Some(
            "can_use_tool will not be invoked: permission mode 'bypassPermissions' \
             auto-approves every tool call (except explicit deny rules) before the callback \
             is consulted. To gate every tool call, use a PreToolUse hook instead."
                .to_owned(),
        );
    }
    let mut entries: Vec<&str> = options.allowed_tools.iter().map(String::as_str).collect();
    // Skills::All puts a bare `Skill` on the command line (argv), which
    // shadows the callback like a hand-written entry; a list does not.
    if matches!(options.skills, Some(Skills::All)) {
        entries.push("Skill");
    }
    let mut shadowed: Vec<&str> = Vec::new();
    for tool in entries.into_iter().filter_map(whole_tool_allowed) {
        if !shadowed.contains(&tool) {
            shadowed.push(tool);
        }
    }
    if shadowed.is_empty() {
        return None;
    }
    Some(format!(
        "can_use_tool will not be invoked for: {}. An allowed_tools entry that allows a whole \
         tool auto-approves it before the callback is consulted. To gate every tool call, use \
         a PreToolUse hook; or narrow the entry so calls fall through to can_use_tool. Allow \
         rules from settings files can also shadow the callback but are not visible here.",
        shadowed.join(", ")
    ))
}

/// Logs the warning (at connect) when a callback is set and shadowed.
pub(crate) fn warn_if_shadowed(options: &Options, has_callback: bool) {
    if !has_callback {
        return;
    }
    if let Some(message) = can_use_tool_shadowed(options) {
        tracing::warn!(target: SHADOWED_TARGET, "{message}");
    }
}

/// The tool an `allowed_tools` entry allows outright: no specifier
/// (`Read`), or an empty or lone-wildcard one (`Read()`, `Read(*)`), as
/// the CLI's rule parser reads them. A real specifier (`Bash(ls:*)`) allows
/// only matching calls; a malformed entry matches nothing.
fn whole_tool_allowed(entry: &str) -> Option<&str> {
    if entry.trim().is_empty() {
        return None;
    }
    let Some(open) = entry.find('(') else {
        return Some(entry);
    };
    if open == 0 || !entry.ends_with(')') {
        return None;
    }
    let specifier = &entry[open + 1..entry.len() - 1];
    matches!(specifier, "" | "*").then(|| &entry[..open])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_tool_entries_are_the_bare_empty_and_wildcard_ones() {
        assert_eq!(whole_tool_allowed("Read"), Some("Read"));
        assert_eq!(whole_tool_allowed("Read()"), Some("Read"));
        assert_eq!(whole_tool_allowed("Read(*)"), Some("Read"));
        assert_eq!(whole_tool_allowed("Bash(ls:*)"), None);
        assert_eq!(whole_tool_allowed("(x)"), None);
        assert_eq!(whole_tool_allowed("Read(x"), None);
        assert_eq!(whole_tool_allowed("  "), None);
    }

    #[test]
    fn bypass_permissions_shadows_every_call() {
        let o = Options::new().permission_mode(PermissionMode::BypassPermissions);
        let w = can_use_tool_shadowed(&o).unwrap();
        assert!(w.contains("bypassPermissions"), "{w}");
    }

    #[test]
    fn shadowed_tools_are_named_once_in_order() {
        let o = Options::new().allowed_tools(["Write", "Read", "Read()", "Bash(git:*)"]);
        let w = can_use_tool_shadowed(&o).unwrap();
        assert!(
            w.starts_with("can_use_tool will not be invoked for: Write, Read. "),
            "{w}"
        );
    }

    #[test]
    fn all_skills_shadow_the_skill_tool_and_a_list_does_not() {
        let all = Options::new().skills_all();
        let w = can_use_tool_shadowed(&all).unwrap();
        assert!(w.contains("invoked for: Skill."), "{w}");
        let list = Options::new().skills(["pdf"]);
        assert_eq!(can_use_tool_shadowed(&list), None);
        assert_eq!(can_use_tool_shadowed(&Options::new()), None);
    }
}
