#![doc = include_str!("../README.md")]

mod cli;
mod error;
pub mod error_chain;
mod install;
mod locate;
mod mcp_echo;
pub mod model;
mod procs;
mod script_builder;
pub mod store_conformance;

pub use cli::{
    ENV_PID_FILE, ENV_RECORD, ENV_SCRIPT, ENV_SCRIPT_JSON, EXIT_BAD_SCRIPT, EXIT_IO, EXIT_TIMEOUT,
    run_fake_cli,
};
pub use error::TestkitError;
pub use install::FakeCli;
pub use locate::{ENV_FAKE_CLI, fake_cli_path};
pub use mcp_echo::{MCP_ECHO_ENV_ARG, run_mcp_echo_env};
pub use procs::{
    ProcState, child_pids, group_members, process_alive, process_group, process_state,
    wait_until_exited, wait_until_gone,
};
pub use script_builder::{OnEnd, Script, Stream};
