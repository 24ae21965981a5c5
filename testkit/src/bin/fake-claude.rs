//! `fake-claude`: a scriptable stand-in for the Claude Code CLI, for fault
//! injection tests. See the `claude-agent-testkit` README for the script
//! format.

fn main() {
    std::process::exit(claude_agent_testkit::run_fake_cli())
}
