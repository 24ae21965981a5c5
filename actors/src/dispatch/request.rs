//! Our control requests: one id, one reply, a bounded wait.

use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use ractor::ActorRef;
use serde::{Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::sync::oneshot;
use tracing::Instrument;

use crate::dispatch::msg::DispatchMsg;
use crate::dispatch::outcome::ControlStatus;
use crate::error::ControlError;
use crate::session::record::SessionRecord;

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
    request: Payload<'a>,
    request_id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
}

/// A control request's payload: a JSON value, or JSON text written before
/// (the SDK serializes its typed requests straight to text once).
#[derive(Clone, Copy)]
pub(crate) enum Payload<'a> {
    Value(&'a Value),
    Json(&'a RawValue),
}

impl Payload<'_> {
    /// The request's `subtype`, if it is a string.
    fn subtype(&self) -> Option<String> {
        #[derive(serde::Deserialize)]
        struct Subtype<'a> {
            #[serde(borrow, default)]
            subtype: Option<std::borrow::Cow<'a, str>>,
        }
        match self {
            Payload::Value(v) => v.get("subtype").and_then(Value::as_str).map(str::to_owned),
            Payload::Json(raw) => serde_json::from_str::<Subtype<'_>>(raw.get())
                .ok()
                .and_then(|s| s.subtype)
                .map(|s| s.into_owned()),
        }
    }
}

impl std::fmt::Display for Payload<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Payload::Value(v) => write!(f, "{v}"),
            Payload::Json(raw) => f.write_str(raw.get()),
        }
    }
}

impl Serialize for Payload<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Payload::Value(v) => v.serialize(s),
            Payload::Json(raw) => raw.serialize(s),
        }
    }
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
    shared: &SessionRecord,
    ids: &RequestIds,
    dispatch: &ActorRef<DispatchMsg>,
    request: Payload<'_>,
    timeout: Duration,
) -> Result<Value, ControlError> {
    let subtype = request
        .subtype()
        .ok_or_else(|| ControlError::InvalidRequest("no string \"subtype\"".into()))?;
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
        request,
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
