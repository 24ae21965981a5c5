#![doc = include_str!("README.md")]

mod events;
mod record;
mod replies;
mod respond;
mod server;

pub use record::{RecordedRequest, ToolResult};
pub use replies::{Block, ModelScript, Reply};
pub use server::ModelServer;
