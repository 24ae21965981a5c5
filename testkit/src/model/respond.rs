//! One request in, one response out: records the request, picks the reply
//! and renders it as SSE or JSON.

use super::events::{self, DELTA, Event, MessageMeta, Stop};
use super::record::RecordedRequest;
use super::replies::{Block, ModelScript, Reply};
use bytes::Bytes;
use futures::StreamExt;
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::header::{CACHE_CONTROL, CONTENT_TYPE, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::{Value, json};
use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::watch;

pub(crate) type Body = UnsyncBoxBody<Bytes, Infallible>;

/// Counts of (all, main) requests recorded so far.
pub(crate) type Counts = (usize, usize);

/// State shared by the server handle and every connection.
#[derive(Debug)]
pub(crate) struct Shared {
    script: Mutex<ModelScript>,
    requests: Mutex<Vec<RecordedRequest>>,
    pub(crate) counts: watch::Sender<Counts>,
    next_id: AtomicU64,
}

/// A poisoned lock only means a test thread panicked while holding it; the
/// data is still consistent (every critical section is a push or a pop).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Shared {
    pub(crate) fn new(script: ModelScript) -> Self {
        Self {
            script: Mutex::new(script),
            requests: Mutex::new(Vec::new()),
            counts: watch::channel((0, 0)).0,
            next_id: AtomicU64::new(1),
        }
    }

    pub(crate) fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.requests).clone()
    }

    pub(crate) fn pending_replies(&self) -> usize {
        let script = lock(&self.script);
        let routed: usize = script.routes.iter().map(|(_, r)| r.len()).sum();
        script.replies.len() + routed
    }

    /// Records `rec` and, for a main request, takes the next script step, in
    /// one critical section so steps follow arrival order.
    fn record(&self, rec: RecordedRequest, take_step: bool) -> Option<Reply> {
        let mut script = lock(&self.script);
        let reply = take_step.then(|| script.next_reply(&rec.first_message_text()));
        let is_main = rec.is_main();
        let mut requests = lock(&self.requests);
        requests.push(rec);
        let total = requests.len();
        drop(requests);
        drop(script);
        self.counts
            .send_modify(|(all, main)| (*all, *main) = (total, *main + usize::from(is_main)));
        reply
    }
}

pub(crate) async fn handle(
    shared: Arc<Shared>,
    req: Request<Incoming>,
) -> Result<Response<Body>, Infallible> {
    let (parts, body) = req.into_parts();
    let Ok(collected) = body.collect().await else {
        // The client went away mid-body; nobody reads this answer.
        return Ok(error_response(
            400,
            "invalid_request_error",
            "body not read",
            0,
        ));
    };
    let bytes = collected.to_bytes();
    let rec = RecordedRequest {
        method: parts.method.to_string(),
        path: parts.uri.path().to_owned(),
        query: parts.uri.query().map(str::to_owned),
        headers: parts
            .headers
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str().to_owned(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect(),
        body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    };
    let n = shared.next_id.fetch_add(1, Ordering::Relaxed);
    let meta = MessageMeta {
        id: format!("msg_test{n:08}"),
        model: rec.model().unwrap_or("claude-test-model").to_owned(),
        input_tokens: events::estimate_tokens(bytes.len()),
    };
    let (stream, is_main) = (rec.is_stream(), rec.is_main());
    let is_post = parts.method == Method::POST;
    match (is_post, rec.path.as_str()) {
        (true, "/v1/messages") => {
            let reply = shared
                .record(rec, is_main)
                .unwrap_or_else(|| Reply::text("ok"));
            Ok(render(reply, &meta, stream, n).await)
        }
        (true, "/v1/messages/count_tokens") => {
            shared.record(rec, false);
            Ok(json_response(
                200,
                &json!({"input_tokens": meta.input_tokens}),
                n,
            ))
        }
        _ => {
            shared.record(rec, false);
            Ok(error_response(404, "not_found_error", "Not found", n))
        }
    }
}

async fn render(reply: Reply, meta: &MessageMeta, stream: bool, n: u64) -> Response<Body> {
    match reply {
        Reply::HttpError {
            status,
            error_type,
            message,
        } => error_response(status, &error_type, &message, n),
        Reply::Message {
            blocks,
            stop_reason,
            ..
        } if !stream => json_response(
            200,
            &events::message_json(meta, &blocks, Stop::plain(&stop_reason)),
            n,
        ),
        Reply::Message {
            blocks,
            stop_reason,
            chunk_delay,
        } => sse_response(
            events::message_events(meta, &blocks, Stop::plain(&stop_reason)),
            chunk_delay,
            false,
            n,
        ),
        Reply::Refusal { text, category } => {
            let blocks = [Block::text(&text)];
            let details = json!({"type": "refusal", "category": category, "explanation": null});
            let stop = Stop {
                reason: "refusal",
                details: Some(&details),
            };
            if stream {
                sse_response(
                    events::message_events(meta, &blocks, stop),
                    Duration::ZERO,
                    false,
                    n,
                )
            } else {
                json_response(200, &events::message_json(meta, &blocks, stop), n)
            }
        }
        Reply::Hang { .. } if !stream => {
            // No response at all; the connection task (and this future) is
            // dropped when the client hangs up or the server is dropped.
            futures::future::pending::<()>().await;
            error_response(500, "api_error", "unreachable", n)
        }
        Reply::Hang { blocks_before } => {
            sse_response(hang_events(meta, &blocks_before), Duration::ZERO, true, n)
        }
    }
}

fn hang_events(meta: &MessageMeta, blocks: &[Block]) -> Vec<Event> {
    let mut events = vec![events::message_start(meta)];
    for (i, b) in blocks.iter().enumerate() {
        events.extend(events::block_events(i, b));
    }
    events
}

/// Streams `events`, sleeping `delay` before each delta; with `hang` the
/// body then stays open forever instead of ending.
fn sse_response(events: Vec<Event>, delay: Duration, hang: bool, n: u64) -> Response<Body> {
    let frames = futures::stream::iter(events).then(move |e| async move {
        if e.name == DELTA && !delay.is_zero() {
            tokio::time::sleep(delay).await;
        }
        Ok::<_, Infallible>(Frame::data(e.to_sse()))
    });
    let body = if hang {
        StreamBody::new(frames.chain(futures::stream::pending())).boxed_unsync()
    } else {
        StreamBody::new(frames).boxed_unsync()
    };
    let mut resp = base(200, n, "text/event-stream; charset=utf-8", body);
    resp.headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    resp
}

fn json_response(status: u16, v: &Value, n: u64) -> Response<Body> {
    let body = Full::new(Bytes::from(v.to_string())).boxed_unsync();
    base(status, n, "application/json", body)
}

fn error_response(status: u16, error_type: &str, message: &str, n: u64) -> Response<Body> {
    json_response(status, &events::error_json(error_type, message), n)
}

fn base(status: u16, n: u64, content_type: &'static str, body: Body) -> Response<Body> {
    let mut resp = Response::new(body);
    *resp.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let h = resp.headers_mut();
    h.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    if let Ok(id) = HeaderValue::from_str(&format!("req_test{n:08}")) {
        h.insert("request-id", id);
    }
    resp
}
