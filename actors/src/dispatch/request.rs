//! Our control requests: one id, one reply, a bounded wait.

use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use ractor::ActorRef;
use serde_json::Value;
use tokio::sync::oneshot;
use tracing::Instrument;

use crate::dispatch::msg::DispatchMsg;
use crate::dispatch::outcome::ControlStatus;
use crate::error::ControlError;
use crate::session::shared::Shared;

/// Our request ids: `req_<counter>_<8 hex>`, unique per session (the
/// hex part differs between sessions, so ids do not repeat across them).
#[derive(Debug)]
pub(crate) struct RequestIds {
    next: AtomicU64,
    salt: u64,
}

impl Default for RequestIds {
    fn default() -> Self {
        Self {
            next: AtomicU64::new(1),
            salt: std::collections::hash_map::RandomState::new()
                .build_hasher()
                .finish(),
        }
    }
}

impl RequestIds {
    pub(crate) fn next(&self) -> String {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let mut h = std::collections::hash_map::DefaultHasher::new();
        h.write_u64(self.salt);
        h.write_u64(n);
        format!("req_{n}_{:08x}", h.finish() as u32)
    }
}

/// Forgets a pending request if its caller stops waiting.
/// The line of an outgoing control request, written straight to bytes (no
/// intermediate JSON value); members in the order the map-built line had.
#[derive(serde::Serialize)]
struct ControlRequestLine<'a> {
    request: &'a Value,
    request_id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
}

struct ForgetGuard<'a> {
    dispatch: &'a ActorRef<DispatchMsg>,
    id: Option<String>,
}

impl Drop for ForgetGuard<'_> {
    fn drop(&mut self) {
        if let Some(id) = self.id.take() {
            let _ = self.dispatch.cast(DispatchMsg::Forget { id });
        }
    }
}

/// Sends one control request and waits for the reply paired by its id.
/// (Whether the session still admits requests is the caller's check.)
pub(crate) async fn control_request(
    shared: &Shared,
    ids: &RequestIds,
    dispatch: &ActorRef<DispatchMsg>,
    request: Value,
    timeout: Duration,
) -> Result<Value, ControlError> {
    let subtype = request
        .get("subtype")
        .and_then(Value::as_str)
        .ok_or_else(|| ControlError::InvalidRequest("no string \"subtype\"".into()))?
        .to_owned();
    let id = ids.next();
    let span = tracing::info_span!(
        parent: &shared.span,
        "control_request",
        request_id = id.as_str(),
        subtype = subtype.as_str(),
        duration_ms = tracing::field::Empty,
        outcome = tracing::field::Empty,
    );
    if shared.log_payloads {
        tracing::debug!(parent: &span, %request, "control request");
    }
    let mut line = serde_json::to_vec(&ControlRequestLine {
        request: &request,
        request_id: &id,
        kind: "control_request",
    })
    .map_err(|e| ControlError::InvalidRequest(e.to_string()))?;
    line.push(b'\n');
    let (tx, rx) = oneshot::channel();
    let started = Instant::now();
    let msg = DispatchMsg::Outbound {
        id: id.clone(),
        line: Bytes::from(line),
        reply: tx,
    };
    dispatch.cast(msg).map_err(|_| ControlError::ShuttingDown)?;
    let mut guard = ForgetGuard {
        dispatch,
        id: Some(id),
    };
    let result = match tokio::time::timeout(timeout, rx)
        .instrument(span.clone())
        .await
    {
        Ok(Ok(r)) => {
            guard.id = None;
            r
        }
        Ok(Err(_)) => {
            guard.id = None;
            Err(ControlError::ShuttingDown)
        }
        Err(_) => Err(ControlError::Timeout {
            subtype,
            after: timeout,
        }),
    };
    span.record("duration_ms", started.elapsed().as_millis() as u64);
    span.record("outcome", ControlStatus::of(&result).as_str());
    result
}
