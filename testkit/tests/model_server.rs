//! The scripted Messages API server, driven by a plain hyper HTTP/1.1
//! client: exact SSE sequences, JSON answers, errors, script consumption,
//! hanging streams and shutdown on drop.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bytes::Bytes;
use claude_agent_testkit::model::{Block, ModelScript, ModelServer, Reply};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::client::conn::http1::{SendRequest, handshake};
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use std::time::Duration;
use tokio::net::TcpStream;
use tokio::task::JoinHandle;
use tokio::time::timeout;

/// Upper bound for any single wait in these tests.
const DEADLINE: Duration = Duration::from_secs(10);

/// One client connection; its driver task is aborted on drop.
struct Client {
    sender: SendRequest<Full<Bytes>>,
    driver: JoinHandle<()>,
}

impl Drop for Client {
    fn drop(&mut self) {
        self.driver.abort();
    }
}

impl Client {
    async fn connect(server: &ModelServer) -> Client {
        let stream = timeout(DEADLINE, TcpStream::connect(server.addr()))
            .await
            .unwrap()
            .unwrap();
        let (sender, conn) = handshake(TokioIo::new(stream)).await.unwrap();
        let driver = tokio::spawn(async move {
            let _ = conn.await;
        });
        Client { sender, driver }
    }

    async fn send(
        &mut self,
        path: &str,
        headers: &[(&str, &str)],
        body: &Value,
    ) -> Response<Incoming> {
        let mut req = Request::post(path).header("host", "127.0.0.1");
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let req = req
            .header("content-type", "application/json")
            .body(Full::new(Bytes::from(body.to_string())))
            .unwrap();
        timeout(DEADLINE, self.sender.send_request(req))
            .await
            .unwrap()
            .unwrap()
    }
}

/// Sends one request on a fresh connection and reads the whole answer.
async fn post(server: &ModelServer, body: Value) -> (u16, String, String) {
    let mut c = Client::connect(server).await;
    let resp = c.send("/v1/messages?beta=true", &[], &body).await;
    let status = resp.status().as_u16();
    let ctype = resp.headers()["content-type"].to_str().unwrap().to_owned();
    let bytes = timeout(DEADLINE, resp.into_body().collect())
        .await
        .unwrap()
        .unwrap()
        .to_bytes();
    (status, ctype, String::from_utf8(bytes.to_vec()).unwrap())
}

fn main_body(stream: bool) -> Value {
    json!({
        "model": "claude-sonnet-test",
        "stream": stream,
        "max_tokens": 100,
        "system": [{"type": "text", "text": "You are a test."}],
        "tools": [{"name": "Bash", "input_schema": {"type": "object"}}],
        "messages": [{"role": "user", "content": "hello"}],
    })
}

fn side_body() -> Value {
    json!({"model": "claude-haiku-test", "stream": true, "messages": [{"role": "user", "content": "title?"}]})
}

/// Parses `event: X\ndata: JSON\n\n` records, checking the framing strictly.
fn parse_sse(s: &str) -> Vec<(String, Value)> {
    assert!(
        s.ends_with("\n\n"),
        "stream must end with a blank line: {s:?}"
    );
    s.trim_end_matches('\n')
        .split("\n\n")
        .map(|rec| {
            let (ev, data) = rec.split_once('\n').unwrap();
            let name = ev.strip_prefix("event: ").unwrap().to_owned();
            let data: Value = serde_json::from_str(data.strip_prefix("data: ").unwrap()).unwrap();
            assert_eq!(data["type"], name.as_str(), "event name matches data.type");
            (name, data)
        })
        .collect()
}

fn names(events: &[(String, Value)]) -> Vec<&str> {
    events.iter().map(|(n, _)| n.as_str()).collect()
}

/// Concatenates the `field` of every delta of type `kind` at `index`.
fn concat_deltas(
    events: &[(String, Value)],
    index: u64,
    kind: &str,
    field: &str,
) -> (usize, String) {
    let parts: Vec<&str> = events
        .iter()
        .filter(|(_, d)| d["index"] == index && d["delta"]["type"] == kind)
        .map(|(_, d)| d["delta"][field].as_str().unwrap())
        .collect();
    (parts.len(), parts.concat())
}

fn stop_reason(events: &[(String, Value)]) -> &str {
    let (_, d) = events.iter().find(|(n, _)| n == "message_delta").unwrap();
    d["delta"]["stop_reason"].as_str().unwrap()
}

#[tokio::test]
async fn streamed_text_is_the_exact_event_sequence() {
    let text = "Hello, wörld! Streaming ✓ works.";
    let server = ModelServer::start(ModelScript::new().reply(Reply::Message {
        blocks: vec![Block::Text {
            text: text.into(),
            chunks: 4,
        }],
        stop_reason: "end_turn".into(),
        chunk_delay: Duration::from_millis(2),
    }))
    .await
    .unwrap();
    let (status, ctype, body) = post(&server, main_body(true)).await;
    assert_eq!(status, 200);
    assert!(ctype.starts_with("text/event-stream"), "{ctype}");
    let ev = parse_sse(&body);
    assert_eq!(
        names(&ev),
        [
            "message_start",
            "content_block_start",
            "content_block_delta",
            "content_block_delta",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop"
        ]
    );
    let msg = &ev[0].1["message"];
    assert!(msg["id"].as_str().unwrap().starts_with("msg_"));
    assert_eq!(msg["type"], "message");
    assert_eq!(msg["role"], "assistant");
    assert_eq!(msg["model"], "claude-sonnet-test");
    assert_eq!(msg["content"], json!([]));
    assert_eq!(msg["stop_reason"], Value::Null);
    assert_eq!(msg["stop_sequence"], Value::Null);
    assert!(msg["usage"]["input_tokens"].as_u64().unwrap() > 0);
    assert_eq!(msg["usage"]["output_tokens"], 1);
    assert_eq!(
        ev[1].1["content_block"],
        json!({"type": "text", "text": ""})
    );
    assert_eq!(
        concat_deltas(&ev, 0, "text_delta", "text"),
        (4, text.to_owned())
    );
    assert_eq!(ev[6].1["index"], 0);
    assert_eq!(stop_reason(&ev), "end_turn");
    assert_eq!(ev[7].1["delta"]["stop_sequence"], Value::Null);
    assert!(ev[7].1["usage"]["output_tokens"].as_u64().unwrap() > 0);
}

#[tokio::test]
async fn tool_use_input_arrives_in_json_delta_parts() {
    let input = json!({"command": "ls -la /tmp", "description": "list ✓", "timeout": 5});
    let server = ModelServer::start(ModelScript::new().reply(Reply::tool_use(
        "toolu_01",
        "Bash",
        input.clone(),
    )))
    .await
    .unwrap();
    let (status, _, body) = post(&server, main_body(true)).await;
    assert_eq!(status, 200);
    let ev = parse_sse(&body);
    assert_eq!(
        ev[1].1["content_block"],
        json!({"type": "tool_use", "id": "toolu_01", "name": "Bash", "input": {}})
    );
    let (parts, joined) = concat_deltas(&ev, 0, "input_json_delta", "partial_json");
    assert!(parts >= 2, "input split into {parts} parts");
    assert_eq!(serde_json::from_str::<Value>(&joined).unwrap(), input);
    assert_eq!(stop_reason(&ev), "tool_use");
    assert_eq!(names(&ev).last(), Some(&"message_stop"));
}

#[tokio::test]
async fn thinking_block_streams_thinking_then_signature() {
    let server = ModelServer::start(ModelScript::new().reply(Reply::Message {
        blocks: vec![
            Block::Thinking {
                thinking: "Let me think about it.".into(),
                signature: "sig-abc".into(),
            },
            Block::text("Answer."),
        ],
        stop_reason: "end_turn".into(),
        chunk_delay: Duration::ZERO,
    }))
    .await
    .unwrap();
    let (_, _, body) = post(&server, main_body(true)).await;
    let ev = parse_sse(&body);
    assert_eq!(ev[1].1["content_block"]["type"], "thinking");
    let (n, thinking) = concat_deltas(&ev, 0, "thinking_delta", "thinking");
    assert!(n >= 1);
    assert_eq!(thinking, "Let me think about it.");
    assert_eq!(
        concat_deltas(&ev, 0, "signature_delta", "signature"),
        (1, "sig-abc".into())
    );
    // The signature comes after every thinking delta, before the block stops.
    let sig_at = ev
        .iter()
        .position(|(_, d)| d["delta"]["type"] == "signature_delta")
        .unwrap();
    assert_eq!(
        ev[sig_at + 1].1,
        json!({"type": "content_block_stop", "index": 0})
    );
    assert_eq!(
        concat_deltas(&ev, 1, "text_delta", "text"),
        (1, "Answer.".into())
    );
}

#[tokio::test]
async fn a_refusal_ends_with_stop_reason_refusal_and_its_category_streamed_or_not() {
    let server = ModelServer::start(
        ModelScript::new()
            .reply(Reply::refusal("I can't", Some("cyber")))
            .reply(Reply::refusal("No.", None)),
    )
    .await
    .unwrap();
    let (status, _, body) = post(&server, main_body(true)).await;
    assert_eq!(status, 200);
    let ev = parse_sse(&body);
    assert_eq!(
        concat_deltas(&ev, 0, "text_delta", "text"),
        (1, "I can't".into())
    );
    assert_eq!(stop_reason(&ev), "refusal");
    let (_, delta) = ev.iter().find(|(n, _)| n == "message_delta").unwrap();
    assert_eq!(
        delta["delta"]["stop_details"],
        json!({"type": "refusal", "category": "cyber", "explanation": null})
    );
    let (_, _, body) = post(&server, main_body(false)).await;
    let msg: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(msg["content"], json!([{"type": "text", "text": "No."}]));
    assert_eq!(msg["stop_reason"], "refusal");
    assert_eq!(
        msg["stop_details"],
        json!({"type": "refusal", "category": null, "explanation": null})
    );
}

#[tokio::test]
async fn http_errors_have_status_and_api_shaped_bodies() {
    let server = ModelServer::start(
        ModelScript::new()
            .reply(Reply::error(429))
            .reply(Reply::error(500))
            .reply(Reply::error(529)),
    )
    .await
    .unwrap();
    for (status, kind) in [
        (429, "rate_limit_error"),
        (500, "api_error"),
        (529, "overloaded_error"),
    ] {
        let (got, ctype, body) = post(&server, main_body(true)).await;
        assert_eq!(got, status);
        assert_eq!(ctype, "application/json");
        let v: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v["type"], "error");
        assert_eq!(v["error"]["type"], kind);
        assert!(
            v["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty())
        );
    }
    // Script exhausted: the fallback answers.
    let (status, _, body) = post(&server, main_body(true)).await;
    assert_eq!(status, 200);
    assert_eq!(
        concat_deltas(&parse_sse(&body), 0, "text_delta", "text").1,
        "done"
    );
}

#[tokio::test]
async fn side_requests_get_ok_and_do_not_consume_the_script() {
    let server = ModelServer::start(
        ModelScript::new()
            .reply(Reply::text("first"))
            .fallback(Reply::text("after")),
    )
    .await
    .unwrap();
    let (_, _, body) = post(&server, side_body()).await;
    assert_eq!(
        concat_deltas(&parse_sse(&body), 0, "text_delta", "text").1,
        "ok"
    );
    let mut empty_tools = side_body();
    empty_tools["tools"] = json!([]);
    let (_, _, body) = post(&server, empty_tools).await;
    assert_eq!(
        concat_deltas(&parse_sse(&body), 0, "text_delta", "text").1,
        "ok"
    );
    assert_eq!(server.pending_replies(), 1);

    let (_, _, body) = post(&server, main_body(true)).await;
    assert_eq!(
        concat_deltas(&parse_sse(&body), 0, "text_delta", "text").1,
        "first"
    );
    let (_, _, body) = post(&server, main_body(true)).await;
    assert_eq!(
        concat_deltas(&parse_sse(&body), 0, "text_delta", "text").1,
        "after"
    );
    assert_eq!(server.requests().len(), 4);
    assert_eq!(server.main_requests().len(), 2);
    assert_eq!(server.pending_replies(), 0);
}

/// The streamed text of a main request whose first message is `prompt`.
async fn text_for(server: &ModelServer, prompt: &str) -> String {
    let mut body = main_body(true);
    body["messages"] = json!([{"role": "user", "content": [{"type": "text", "text": prompt}]}]);
    let (_, _, sse) = post(server, body).await;
    concat_deltas(&parse_sse(&sse), 0, "text_delta", "text").1
}

#[tokio::test]
async fn requests_marked_in_their_first_message_take_their_own_steps() {
    let server = ModelServer::start(
        ModelScript::new()
            .reply(Reply::text("main one"))
            .reply(Reply::text("main two"))
            .reply_for_prompt("AGENT-1", Reply::text("agent one"))
            .reply_for_prompt("AGENT-1", Reply::text("agent two"))
            .fallback(Reply::text("after")),
    )
    .await
    .unwrap();
    assert_eq!(server.pending_replies(), 4);
    // The agent asks first, yet the main sequence keeps its own order.
    assert_eq!(text_for(&server, "AGENT-1: do it").await, "agent one");
    assert_eq!(text_for(&server, "hello").await, "main one");
    assert_eq!(text_for(&server, "AGENT-1: do it").await, "agent two");
    assert_eq!(text_for(&server, "AGENT-1: do it").await, "after");
    assert_eq!(text_for(&server, "hello").await, "main two");
    assert_eq!(server.pending_replies(), 0);
    assert_eq!(
        server.main_requests()[0].first_message_text(),
        "AGENT-1: do it"
    );
}

#[tokio::test]
async fn hang_sends_first_events_then_holds_until_the_server_drops() {
    let server = ModelServer::start(ModelScript::new().reply(Reply::Hang {
        blocks_before: vec![Block::Text {
            text: "partial".into(),
            chunks: 2,
        }],
    }))
    .await
    .unwrap();
    let addr = server.addr();
    let mut c = Client::connect(&server).await;
    let resp = c
        .send("/v1/messages?beta=true", &[], &main_body(true))
        .await;
    assert_eq!(resp.status(), 200);
    let mut body = resp.into_body();
    // message_start + start + 2 deltas + stop = 5 events; read until seen.
    let mut got = String::new();
    while got.matches("\n\n").count() < 5 {
        let frame = timeout(DEADLINE, body.frame())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        got.push_str(std::str::from_utf8(frame.data_ref().unwrap()).unwrap());
    }
    let ev = parse_sse(&got);
    assert_eq!(names(&ev)[0], "message_start");
    assert_eq!(concat_deltas(&ev, 0, "text_delta", "text").1, "partial");
    // Nothing more comes while the server lives (a bounded look).
    assert!(
        timeout(Duration::from_millis(200), body.frame())
            .await
            .is_err()
    );

    drop(server);
    // The connection closes: the body ends with an error (chunked stream cut).
    let end = timeout(DEADLINE, body.frame())
        .await
        .expect("connection closed after drop");
    assert!(
        !matches!(end, Some(Ok(_))),
        "no more data after drop: {end:?}"
    );
    // And nobody listens any more.
    assert!(TcpStream::connect(addr).await.is_err());
}

#[tokio::test]
async fn requests_are_recorded_with_path_headers_and_body() {
    let server = ModelServer::start(ModelScript::new()).await.unwrap();
    let mut body = main_body(true);
    body["messages"] = json!([
        {"role": "user", "content": "run it"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_9", "name": "Bash", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_9", "content": "hi\n", "is_error": false}]},
    ]);
    let mut c = Client::connect(&server).await;
    let resp = c
        .send(
            "/v1/messages?beta=true",
            &[
                ("X-Api-Key", "test-key"),
                ("Anthropic-Version", "2023-06-01"),
            ],
            &body,
        )
        .await;
    timeout(DEADLINE, resp.into_body().collect())
        .await
        .unwrap()
        .unwrap();
    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    let r = &reqs[0];
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("POST", "/v1/messages")
    );
    assert_eq!(r.query.as_deref(), Some("beta=true"));
    assert!(
        r.headers
            .iter()
            .any(|(k, v)| k == "x-api-key" && v == "test-key")
    );
    assert_eq!(r.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(r.body, body);
    assert_eq!(r.model(), Some("claude-sonnet-test"));
    assert_eq!(r.system().as_deref(), Some("You are a test."));
    assert!(r.is_stream());
    let results = r.tool_results();
    assert_eq!(results.len(), 1);
    assert_eq!(
        (results[0].tool_use_id.as_str(), results[0].text().as_str()),
        ("toolu_9", "hi\n")
    );
    assert!(!results[0].is_error);
    assert_eq!(r.last_user_content().unwrap()[0]["type"], "tool_result");
}

#[tokio::test]
async fn wait_for_requests_wakes_on_arrival_and_times_out() {
    let server = std::sync::Arc::new(ModelServer::start(ModelScript::new()).await.unwrap());
    // Nothing arrives: the wait gives up at its deadline.
    assert!(!server.wait_for_requests(1, Duration::from_millis(50)).await);
    let waiter = {
        let server = std::sync::Arc::clone(&server);
        tokio::spawn(async move { server.wait_for_requests(2, DEADLINE).await })
    };
    let main = {
        let server = std::sync::Arc::clone(&server);
        tokio::spawn(async move { server.wait_for_main_requests(1, DEADLINE).await })
    };
    post(&server, side_body()).await;
    // One request is not enough: the waiter can only finish by seeing two
    // (its deadline is far off).
    assert!(!waiter.is_finished());
    post(&server, main_body(false)).await;
    assert!(timeout(DEADLINE, waiter).await.unwrap().unwrap());
    assert!(timeout(DEADLINE, main).await.unwrap().unwrap());
    assert!(server.wait_for_requests(2, Duration::ZERO).await);
}

#[tokio::test]
async fn non_streaming_requests_get_the_json_message() {
    let input = json!({"path": "/tmp/x"});
    let server = ModelServer::start(
        ModelScript::new()
            .reply(Reply::Message {
                blocks: vec![
                    Block::Thinking {
                        thinking: "hmm".into(),
                        signature: "s".into(),
                    },
                    Block::Text {
                        text: "reading".into(),
                        chunks: 3,
                    },
                    Block::ToolUse {
                        id: "toolu_2".into(),
                        name: "Read".into(),
                        input: input.clone(),
                    },
                ],
                stop_reason: "tool_use".into(),
                chunk_delay: Duration::from_millis(5),
            })
            .reply(Reply::error(529)),
    )
    .await
    .unwrap();
    let mut absent = main_body(false);
    absent.as_object_mut().unwrap().remove("stream");
    let (status, ctype, body) = post(&server, absent).await;
    assert_eq!((status, ctype.as_str()), (200, "application/json"));
    let v: Value = serde_json::from_str(&body).unwrap();
    assert!(v["id"].as_str().unwrap().starts_with("msg_"));
    assert_eq!(
        (v["type"].as_str(), v["role"].as_str()),
        (Some("message"), Some("assistant"))
    );
    assert_eq!(v["model"], "claude-sonnet-test");
    assert_eq!(v["stop_reason"], "tool_use");
    assert_eq!(v["stop_sequence"], Value::Null);
    assert_eq!(
        v["content"],
        json!([
            {"type": "thinking", "thinking": "hmm", "signature": "s"},
            {"type": "text", "text": "reading"},
            {"type": "tool_use", "id": "toolu_2", "name": "Read", "input": input},
        ])
    );
    assert!(v["usage"]["output_tokens"].as_u64().unwrap() > 0);

    let (status, _, body) = post(&server, main_body(false)).await;
    assert_eq!(status, 529);
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap()["error"]["type"],
        "overloaded_error"
    );
    // Side request, non-streaming.
    let mut side = side_body();
    side["stream"] = json!(false);
    let (_, _, body) = post(&server, side).await;
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap()["content"][0]["text"],
        "ok"
    );
}

#[tokio::test]
async fn one_keep_alive_connection_serves_successive_turns_and_other_paths() {
    let server = ModelServer::start(
        ModelScript::new()
            .reply(Reply::text("one"))
            .reply(Reply::text("two")),
    )
    .await
    .unwrap();
    let mut c = Client::connect(&server).await;
    for want in ["one", "two"] {
        let resp = c
            .send("/v1/messages?beta=true", &[], &main_body(true))
            .await;
        let bytes = timeout(DEADLINE, resp.into_body().collect())
            .await
            .unwrap()
            .unwrap()
            .to_bytes();
        let ev = parse_sse(std::str::from_utf8(&bytes).unwrap());
        assert_eq!(concat_deltas(&ev, 0, "text_delta", "text").1, want);
    }
    let resp = c
        .send("/v1/messages/count_tokens", &[], &main_body(false))
        .await;
    assert_eq!(resp.status(), 200);
    let bytes = timeout(DEADLINE, resp.into_body().collect())
        .await
        .unwrap()
        .unwrap()
        .to_bytes();
    assert!(
        serde_json::from_slice::<Value>(&bytes).unwrap()["input_tokens"]
            .as_u64()
            .unwrap()
            > 0
    );
    let resp = c.send("/v1/other", &[], &json!({})).await;
    assert_eq!(resp.status(), 404);
    let bytes = timeout(DEADLINE, resp.into_body().collect())
        .await
        .unwrap()
        .unwrap()
        .to_bytes();
    assert_eq!(
        serde_json::from_slice::<Value>(&bytes).unwrap()["error"]["type"],
        "not_found_error"
    );
    // Only the two /v1/messages turns consumed steps; all four are recorded.
    assert_eq!(server.requests().len(), 4);
    assert_eq!(server.pending_replies(), 0);
}

#[test]
fn env_points_the_cli_at_the_server() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let server = rt.block_on(ModelServer::start(ModelScript::new())).unwrap();
    let env = server.env();
    let get = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    assert_eq!(get("ANTHROPIC_BASE_URL"), Some(server.base_url().as_str()));
    assert!(server.base_url().starts_with("http://127.0.0.1:"));
    assert_eq!(get("ANTHROPIC_API_KEY"), Some("test-key"));
    assert_eq!(get("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"), Some("1"));
    assert_eq!(get("DISABLE_AUTOUPDATER"), Some("1"));
    assert_eq!(get("CLAUDE_CODE_MAX_RETRIES"), Some("2"));
    // Dropped outside the runtime's context: still shuts down cleanly.
    drop(server);
    drop(rt);
}
