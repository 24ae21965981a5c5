//! What most programs need, in one `use`:
//!
//! ```no_run
//! use claude_agent::prelude::*;
//!
//! # async fn run() -> claude_agent::Result<()> {
//! let mut messages = query("What is 2 + 2?", Options::new());
//! while let Some(message) = messages.next().await {
//!     if let Some(text) = message?.text() {
//!         println!("{text}");
//!     }
//! }
//! # Ok(()) }
//! ```
//!
//! It brings in the stream trait ([`StreamExt`], for `.next()` on a
//! [`Query`] or a [`Client`]'s messages), the entry points and the types a
//! first program matches on.

pub use futures::{Stream, StreamExt};

pub use crate::client::{Client, ClientBuilder, Query, query};
pub use crate::error::{Error, Result};
#[cfg(feature = "host")]
pub use crate::host::Host;
pub use crate::options::Options;
pub use crate::protocol::{ContentBlock, Message};
