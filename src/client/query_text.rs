//! [`Query::text`]: a one-shot run's answer in one call, as reqwest's
//! `Response::text` is a body's.

use futures::StreamExt;

use super::Query;
use crate::protocol::Message;
use crate::{Error, Result};

impl Query {
    /// Runs the query to its end and returns the final result's text.
    ///
    /// A turn that ended in error is [`Error::Result`] (with the CLI's
    /// error messages); a CLI that failed is the error that says how. A
    /// malformed line on the way is skipped, as the stream itself goes on
    /// past one. A run that ends several turns (background agents) answers
    /// with its last result.
    ///
    /// ```no_run
    /// # async fn run() -> claude_agent::Result<()> {
    /// let answer = claude_agent::client::query("What is 2 + 2?", claude_agent::options::Options::new())
    ///     .text()
    ///     .await?;
    /// println!("{answer}");
    /// # Ok(()) }
    /// ```
    pub async fn text(mut self) -> Result<String> {
        let mut last = None;
        while let Some(item) = self.next().await {
            match item {
                Ok(Message::Result(result)) => last = Some(result),
                Ok(_) => {}
                Err(Error::Parse(e)) => tracing::warn!(error = %e, "skipped a malformed line"),
                Err(e) => return Err(e),
            }
        }
        // The stream ends with a result or with an error, so `None` means
        // the CLI ended the run without one; say so as the runtime would.
        let result = last.ok_or(Error::Session(
            crate::runtime::SessionError::ClosedBeforeResult {
                exit: self.shutdown_report().and_then(|r| r.exit),
                stderr_tail: self
                    .shutdown_report()
                    .map(|r| r.stderr_tail.join("\n"))
                    .unwrap_or_default(),
            },
        ))?;
        let result = result.into_result()?;
        Ok(result.result.unwrap_or_default())
    }
}
