//! [`RedisOptions`]: how to connect a [`RedisStore`](super::RedisStore).

use std::time::Duration;

/// How to connect a [`RedisStore`](super::RedisStore).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RedisOptions {
    /// The prefix of every key the store writes (default `claude-agent`);
    /// one prefix per store isolates stores on one server.
    pub prefix: String,
    /// How long to wait for the server to connect or answer (default 30 s).
    pub timeout: Duration,
}

impl Default for RedisOptions {
    fn default() -> Self {
        Self {
            prefix: "claude-agent".into(),
            timeout: Duration::from_secs(30),
        }
    }
}

impl RedisOptions {
    /// Use `prefix` for every key.
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }
}
