//! How frames move: one supervised ractor tree per Claude Code session.

pub mod channel;
pub mod framing;
pub mod process;
pub mod stderr;
