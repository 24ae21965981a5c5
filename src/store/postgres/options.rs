//! [`PostgresOptions`]: how to connect a [`PostgresStore`](super::PostgresStore).

use std::time::Duration;

/// How to connect a [`PostgresStore`](super::PostgresStore).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct PostgresOptions {
    /// The schema holding the store's tables, created if missing
    /// (default `claude_agent`); one schema per store isolates stores.
    pub schema: String,
    /// Connections in the pool at most (default 16).
    pub max_connections: usize,
    /// How long to wait for a connection, from the pool or a new one
    /// (default 30 s).
    pub connect_timeout: Duration,
}

impl Default for PostgresOptions {
    fn default() -> Self {
        Self {
            schema: "claude_agent".into(),
            max_connections: 16,
            connect_timeout: Duration::from_secs(30),
        }
    }
}

impl PostgresOptions {
    /// Use `schema` for the store's tables.
    pub fn schema(mut self, schema: impl Into<String>) -> Self {
        self.schema = schema.into();
        self
    }

    /// Pool at most `n` connections (at least 1).
    pub fn max_connections(mut self, n: usize) -> Self {
        self.max_connections = n.max(1);
        self
    }
}
