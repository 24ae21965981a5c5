//! `--store URL` of `run` and `host`: opening the session store, and the
//! one-line texts for its failures and its `mirror_error` messages.

use std::sync::Arc;
use std::time::Duration;

use claude_agent::SessionReport;
use claude_agent::protocol::MirrorError;
use claude_agent::store::{SessionStore, StoreError, open_store};

/// Why `--store` could not be opened, in one line.
pub(crate) struct OpenFailure {
    pub(crate) message: String,
    /// The URL itself is wrong (a usage error), not the server.
    pub(crate) bad_url: bool,
}

/// Opens the store `url` names within `timeout`, or says in one line why
/// it cannot (a bad URL, a server that does not answer, a refused login).
pub(crate) async fn open(
    url: &str,
    timeout: Duration,
) -> Result<Arc<dyn SessionStore>, OpenFailure> {
    match tokio::time::timeout(timeout, open_store(url)).await {
        Ok(Ok(store)) => Ok(store),
        Ok(Err(e)) => Err(OpenFailure {
            message: with_causes(&e),
            bad_url: matches!(e, StoreError::BadUrl { .. }),
        }),
        Err(_) => Err(OpenFailure {
            message: format!(
                "cannot open the session store: no answer within {:.1} s",
                timeout.as_secs_f64()
            ),
            bad_url: false,
        }),
    }
}

/// An error and its sources on one line, `: `-separated, each said once.
pub(crate) fn with_causes(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let part = s.to_string();
        // Backends often repeat their source's text in their own.
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = s.source();
    }
    text
}

/// A `mirror_error` message as one human line.
pub(crate) fn mirror_error_line(m: &MirrorError) -> String {
    let key = m.key.as_ref().map_or_else(String::new, |k| {
        let mut s = format!(
            " for {}/{}",
            k.project_key.as_deref().unwrap_or("?"),
            k.session_id.as_deref().unwrap_or("?")
        );
        if let Some(sub) = &k.subpath {
            s.push('/');
            s.push_str(sub);
        }
        s
    });
    format!(
        "session store: a mirrored batch was dropped{key}: {}",
        m.error.as_deref().unwrap_or("the append failed")
    )
}

/// The mirror's counts of a shutdown report, when a store was configured.
pub(crate) fn mirror_counts(report: &SessionReport) -> Option<String> {
    let persisted = report.mirror_persisted?;
    let unpersisted = report.mirror_unpersisted.unwrap_or(0);
    Some(format!(
        "session store: {persisted} transcript entries persisted, {unpersisted} not"
    ))
}
