//! Whether the CLI's permission-rule parser takes one rule of
//! `permissions.allow`, `deny` or `ask` (`Bash(npm run:*)`, `Read(./src/**)`,
//! `mcp__server__tool`, `WebFetch(domain:x)`). The settings reader drops a
//! rule it refuses. Learnt from the TypeScript SDK 0.3.332's validator and
//! checked against its recorded answers
//! (`testdata/resolve_settings/ts_sdk_0.3.332_key_probes.jsonl`). Only
//! validity is decided here; the warnings TS attaches to valid rules change
//! nothing that is read.

/// The tools whose content is a path pattern, where `:*` has no meaning.
const FILE_PATTERN_TOOLS: &[&str] = &[
    "Read",
    "Write",
    "Edit",
    "Glob",
    "NotebookRead",
    "NotebookEdit",
    "Cd",
];

/// Old tool names the parser reads as their new ones.
const ALIASES: &[(&str, &str)] = &[
    ("Task", "Agent"),
    ("KillShell", "TaskStop"),
    ("KillBash", "TaskStop"),
    ("ListPeers", "ListAgents"),
    ("Brief", "SendUserMessage"),
    ("ListMcpResources", "ListMcpResourcesTool"),
    ("ReadMcpResource", "ReadMcpResourceTool"),
    ("ReadMcpResourceDir", "ReadMcpResourceDirTool"),
    ("ProposeGoal", "SetGoal"),
];

/// Which list a rule is in: an allow rule may not widen by a wildcard in
/// its tool's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RuleList {
    Allow,
    DenyOrAsk,
}

/// How the parser splits a rule.
enum Shape<'a> {
    /// A tool's name alone (parentheses only escaped, if any).
    Bare,
    /// `Tool(content)`.
    Call { tool: &'a str, raw: &'a str },
    /// Parentheses that do not close the rule.
    Malformed,
}

/// Whether the byte at `i` is escaped by an odd run of backslashes.
fn escaped(s: &[u8], i: usize) -> bool {
    s[..i].iter().rev().take_while(|b| **b == b'\\').count() % 2 == 1
}

fn unescaped_positions(s: &str, c: u8) -> impl DoubleEndedIterator<Item = usize> + '_ {
    let b = s.as_bytes();
    (0..b.len()).filter(move |&i| b[i] == c && !escaped(b, i))
}

fn shape(rule: &str) -> Shape<'_> {
    if !rule.contains(['(', ')']) {
        return Shape::Bare;
    }
    let open = unescaped_positions(rule, b'(').next();
    let close = unescaped_positions(rule, b')').next_back();
    match (open, close) {
        (None, None) => Shape::Bare,
        (Some(o), Some(c)) if c > o && c == rule.len() - 1 && !rule[..o].contains(['(', ')']) => {
            Shape::Call {
                tool: &rule[..o],
                raw: &rule[o + 1..c],
            }
        }
        _ => Shape::Malformed,
    }
}

/// JavaScript's `trim()` whitespace.
fn js_space(c: char) -> bool {
    (c.is_whitespace() && c != '\u{85}') || c == '\u{FEFF}'
}

/// `mcp__server` or `mcp__server__tool`: the server's name.
fn mcp_server(tool: &str) -> Option<&str> {
    let rest = tool.strip_prefix("mcp__")?;
    match rest.find("__") {
        None if rest.is_empty() => None,
        None => Some(rest),
        Some(0) => None,
        Some(i) => Some(&rest[..i]),
    }
}

/// Counts of unescaped parentheses differ, and one is escaped after a
/// non-backslash: `\(` could be a path's separator or a literal.
fn ambiguous_escape(raw: &str) -> bool {
    let b = raw.as_bytes();
    let escaped_paren = (0..b.len()).any(|i| {
        b[i] == b'\\' && matches!(b.get(i + 1), Some(b'(' | b')')) && (i == 0 || b[i - 1] != b'\\')
    });
    escaped_paren
        && unescaped_positions(raw, b'(').count() != unescaped_positions(raw, b')').count()
}

/// Whether the first letter of a tool's name is not a capital (compared as
/// JavaScript does: one UTF-16 unit, so a character beyond it passes).
fn starts_lowercase(tool: &str) -> bool {
    match tool.chars().next() {
        Some(c) if (c as u32) <= 0xFFFF => c.to_uppercase().ne(std::iter::once(c)),
        _ => false,
    }
}

/// Whether the settings reader keeps `rule` in a list of kind `list`.
pub(crate) fn is_valid_rule(rule: &str, list: RuleList) -> bool {
    if rule.trim_matches(js_space).is_empty() {
        return false;
    }
    let shape = shape(rule);
    // The tool's name and content as the matcher reads them.
    let (tool, content) = match shape {
        Shape::Malformed => return false,
        Shape::Call { raw: "", .. } => return false,
        Shape::Call { tool, raw } if !tool.is_empty() && raw != "*" => (
            tool,
            Some(
                raw.replace("\\(", "(")
                    .replace("\\)", ")")
                    .replace("\\\\", "\\"),
            ),
        ),
        Shape::Call { tool, .. } if !tool.is_empty() => (tool, None),
        _ => (rule, None),
    };
    let tool = ALIASES
        .iter()
        .find(|(old, _)| *old == tool)
        .map_or(tool, |(_, new)| new);
    // Allow rules take a wildcard only in a tool's name after a literal
    // MCP server.
    let widens = |server: Option<&str>| {
        list == RuleList::Allow && tool.contains('*') && server.is_none_or(|s| s.contains('*'))
    };
    if let Some(server) = mcp_server(tool) {
        return !matches!(shape, Shape::Call { .. }) && !widens(Some(server));
    }
    if tool.is_empty() || widens(None) {
        return false;
    }
    if !tool.contains('_') && starts_lowercase(tool) {
        return false;
    }
    if let Shape::Call { raw, .. } = shape
        && ambiguous_escape(raw)
    {
        return false;
    }
    let Some(content) = content else {
        return true;
    };
    match tool {
        "WebSearch" => !content.contains(['*', '?']),
        "WebFetch" => {
            !content.contains("://")
                && !content.starts_with("http")
                && content.starts_with("domain:")
        }
        "Bash" => content != ":*",
        t if FILE_PATTERN_TOOLS.contains(&t) => !content.contains(":*"),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::RuleList::{Allow, DenyOrAsk};
    use super::*;

    #[test]
    fn plain_rules_are_kept() {
        for rule in [
            "Bash",
            "Bash(npm run:*)",
            "Bash(npm run *)",
            "Bash(*)",
            "Read(./src/**)",
            "Edit(//tmp/x)",
            "mcp__server",
            "mcp__server__tool",
            "mcp__server__*",
            "WebFetch(domain:example.com)",
            "WebFetch(domain:*.example.com)",
            "WebSearch(claude ai)",
            "my_tool",
            "Task(Explore)",
            "Bash(echo \\(x\\))",
            "Read(C:/a/(b)/c)",
            "1tool",
            "(foo)",
            "Ba(sh(x)",
        ] {
            assert!(is_valid_rule(rule, Allow), "{rule} allowed");
            assert!(is_valid_rule(rule, DenyOrAsk), "{rule} denied");
        }
    }

    #[test]
    fn refused_rules_are_dropped_from_every_list() {
        for rule in [
            "",
            "  ",
            "bash",
            "Bash()",
            "()",
            "Bash(x",
            "Bash)",
            "Bash(a)b",
            "mcp__server__tool(x)",
            "mcp__server(*)",
            "Bash(:*)",
            "Read(src:*)",
            "Edit(a:*b)",
            "WebFetch(https://x.com)",
            "WebFetch(example.com)",
            "WebFetch(httpbin.org)",
            "WebSearch(a*)",
            "WebSearch(a?)",
            "Bash(C:\\tools\\(x86)\\run.exe *)",
            "émoji",
        ] {
            assert!(!is_valid_rule(rule, Allow), "{rule} allowed");
            assert!(!is_valid_rule(rule, DenyOrAsk), "{rule} denied");
        }
    }

    #[test]
    fn only_allow_rules_refuse_a_wildcard_outside_an_mcp_tools_name() {
        for rule in ["*", "Bash*", "mcp__*", "mcp__*__tool", "B*(x)"] {
            assert!(!is_valid_rule(rule, Allow), "{rule} allowed");
            assert!(is_valid_rule(rule, DenyOrAsk), "{rule} denied");
        }
        assert!(is_valid_rule("mcp__s__get_*", Allow));
    }

    #[test]
    fn a_character_beyond_one_utf16_unit_passes_the_capital_test() {
        assert!(is_valid_rule("\u{1D4D0}tool", DenyOrAsk));
        assert!(!is_valid_rule("ßtool", DenyOrAsk));
    }
}
