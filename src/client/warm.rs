//! [`startup`]: a one-shot [`query`](super::query) whose CLI is started
//! before its prompt is known, as the TypeScript SDK's `startup()` does.
//! The spawn, module load, MCP connections and the `initialize` handshake
//! happen now; [`WarmQuery::query`] later only writes the prompt, so the
//! first turn does not pay the start-up.
//!
//! A [`Client`] is warm the same way from [`Client::connect`] on: connect
//! early, send later. [`WarmQuery::client`] gives the started session for
//! controls before the prompt, e.g. [`Client::set_cwd`] to serve a
//! directory chosen after the start.

use super::query::{self, RunPlan};
use super::{Client, ClientBuilder, Query, QueryPrompt};
use crate::Result;
use crate::extensions::SessionReport;
use crate::options::Options;

/// A started, initialized CLI waiting for the prompt of one
/// [`query`](super::query). Dropping it shuts the CLI down in the
/// background; [`close`](Self::close) does it in order and reports.
///
/// ```no_run
/// use futures::StreamExt;
/// use claude_agent::client::startup;
/// use claude_agent::options::Options;
///
/// # async fn run() -> claude_agent::Result<()> {
/// let warm = startup(Options::new()).await?; // pays the start-up now
/// // ... later, when the prompt is known:
/// let mut messages = warm.query("Say hello");
/// while let Some(message) = messages.next().await {
///     println!("{}", message?.kind());
/// }
/// # Ok(()) }
/// ```
#[must_use = "a warm query holds a running CLI"]
pub struct WarmQuery {
    client: Client,
    plan: RunPlan,
}

impl std::fmt::Debug for WarmQuery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WarmQuery")
            .field("pid", &self.client.pid())
            .finish_non_exhaustive()
    }
}

/// Starts the CLI for a [`query`](super::query) with `options` and waits
/// for its `initialize` reply. Use [`ClientBuilder::startup`] for
/// callbacks and runtime settings.
pub async fn startup(options: Options) -> Result<WarmQuery> {
    ClientBuilder::new(options).startup().await
}

impl ClientBuilder {
    /// [`startup`] with this builder's callbacks and settings: what
    /// [`query`](Self::query) would start, started now.
    pub async fn startup(mut self) -> Result<WarmQuery> {
        query::prepare(&mut self);
        let plan = RunPlan::of(&self);
        let client = self.connect().await?;
        Ok(WarmQuery { client, plan })
    }
}

impl WarmQuery {
    /// Sends `prompt` to the waiting CLI; the run goes on as a
    /// [`query`](super::query)'s does, and the CLI is shut down after it.
    pub fn query(self, prompt: impl Into<QueryPrompt>) -> Query {
        let QueryPrompt(prompt) = prompt.into();
        Query::warm(self.client, self.plan, prompt)
    }

    /// The started session, for controls before the prompt (its pid, the
    /// `initialize` reply, [`Client::set_cwd`], ...). Do not send turns
    /// through it: the query counts the turns it sent itself.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Shuts the CLI down without a prompt, in order, and reports how.
    pub async fn close(self) -> SessionReport {
        self.client.shutdown().await
    }
}
