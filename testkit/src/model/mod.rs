#![doc = include_str!("README.md")]

mod events;
mod record;
mod respond;
mod script;
mod server;

pub use record::{RecordedRequest, ToolResult};
pub use script::{Block, ModelScript, Reply};
pub use server::ModelServer;
