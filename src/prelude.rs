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

// The prelude is the one place a type has a second path: a convenience
// for `use ... ::*`, shown in the docs as re-exports, not as new items.
#[doc(no_inline)]
pub use futures::{Stream, StreamExt};

#[doc(no_inline)]
pub use crate::client::{Client, ClientBuilder, Query, query};
#[doc(no_inline)]
pub use crate::error::{Error, Result};
#[cfg(feature = "host")]
#[doc(no_inline)]
pub use crate::host::Host;
#[doc(no_inline)]
pub use crate::options::Options;
#[doc(no_inline)]
pub use crate::protocol::{ContentBlock, Message};
