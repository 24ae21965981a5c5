//! The extensions of one session, run phase by phase.

use std::sync::Arc;

use claude_agent_actors::{SessionConfig, SessionStats, ShutdownReport};
use tokio_util::sync::CancellationToken;

use super::{DynExtension, PreStart, SessionReport, Started, Stopped};
use crate::{Error, Result};

/// A session's extensions, outermost first (see the module docs for the
/// order each phase runs in).
#[derive(Clone, Default)]
pub(crate) struct ExtensionList(Vec<Arc<dyn DynExtension>>);

impl ExtensionList {
    pub(crate) fn push(&mut self, extension: Arc<dyn DynExtension>) {
        self.0.push(extension);
    }

    /// From the outside in; the first error fails the connect.
    pub(crate) async fn pre_start(&self, start: &mut PreStart<'_>) -> Result<()> {
        for e in &self.0 {
            e.pre_start(start).await?;
        }
        Ok(())
    }

    /// From the inside out: each wraps what the inner ones set.
    pub(crate) fn configure(&self, mut config: SessionConfig) -> Result<SessionConfig> {
        for e in self.0.iter().rev() {
            config = e.configure(config)?;
        }
        Ok(config)
    }

    /// From the inside out; the first error fails the connect.
    pub(crate) async fn post_start(&self, started: &Started<'_>) -> Result<()> {
        for e in self.0.iter().rev() {
            e.post_start(started).await?;
        }
        Ok(())
    }

    pub(crate) fn connect_failed(&self, error: &Error) {
        for e in &self.0 {
            e.connect_failed(error);
        }
    }

    /// From the inside out: the SDK's report over the runtime's. `hurried`
    /// is the client's hurry token (see [`Stopped::hurried`]).
    pub(crate) async fn post_stop(
        &self,
        runtime: ShutdownReport,
        stats: &SessionStats,
        session_id: Option<&str>,
        hurried: &CancellationToken,
    ) -> SessionReport {
        let mut report = SessionReport::from(runtime);
        for e in self.0.iter().rev() {
            let mut stopped = Stopped {
                report: &mut report,
                stats,
                session_id,
                name: e.name(),
                hurried,
            };
            e.post_stop(&mut stopped).await;
        }
        report
    }
}
