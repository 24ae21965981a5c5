//! The scanner must route exactly as serde does: every line below, and
//! thousands of mutations of real lines, get the same envelope (or the same
//! refusal) from `peek` as from `peek_serde`.

use super::{Scan, scan, string_stop};
use crate::reader::envelope::{Envelope, Unroutable, peek, peek_serde};

const SESSION: &str = include_str!("../../../../testdata/sample-session.ndjson");

const ASSISTANT: &str = r#"{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"Hi \"there\" \u00e9\n"}],"stop_reason":null,"usage":{"input_tokens":12,"output_tokens":-3.5e+2}},"parent_tool_use_id":null,"session_id":"s-1","uuid":"u"}"#;
const REPLY: &str = r#"{"type":"control_response","response":{"subtype":"success","request_id":"req_1_ab","response":{"commands":[],"models":[{"value":"m"}],"pid":7}}}"#;
const ERROR_REPLY: &str = r#"{"response":{"error":"no \"such\" tool","request_id":"req_2","subtype":"error"},"type":"control_response"}"#;
const INIT: &str =
    r#"{"type":"system","subtype":"init","session_id":"s-9","tools":[[],{},[1,[true,false]]]}"#;

/// The routing before the scanner: serde for every object.
fn reference(line: &[u8]) -> Result<Envelope, Unroutable> {
    match line.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{') => peek_serde(line),
        _ => Err(Unroutable::NotJson),
    }
}

/// Asserts both agree; returns whether the line was routed.
fn same(line: &[u8]) -> bool {
    let routed = peek(line);
    assert_eq!(
        routed,
        reference(line),
        "routing differs for {:?}",
        String::from_utf8_lossy(line)
    );
    routed.is_ok()
}

#[test]
fn agrees_with_serde_on_edge_cases() {
    let lines: &[&[u8]] = &[
        b"{}",
        b" { } ",
        br#"{"type":"assistant"}"#,
        br#"{"type":"assistant",}"#,
        br#"{"type":"assistant" "x":1}"#,
        br#"{"type":"assistant"}x"#,
        br#"{"type":"assistant","type":"user"}"#,
        br#"{"type":"assistant","subtype":1,"subtype":2}"#,
        br#"{"type":"assistant","x":1,"x":2}"#,
        br#"{"type":"assistant","request":{}}"#,
        br#"{"type":"a\u0073sistant"}"#,
        br#"{"ty\u0070e":"assistant"}"#,
        br#"{"type":"assistant","n":01}"#,
        br#"{"type":"assistant","n":1.}"#,
        br#"{"type":"assistant","n":-}"#,
        br#"{"type":"assistant","n":1e}"#,
        br#"{"type":"assistant","n":[1,]}"#,
        br#"{"type":"assistant","n":"\x"}"#,
        br#"{"type":"assistant","n":"\u12g4"}"#,
        br#"{"type":"assistant","n":tru}"#,
        b"{\"type\":\"assistant\",\"n\":\"a\tb\"}",
        b"{\"type\":\"assistant\",\"n\":\"\xff\"}",
        b"{\"type\":\"assistant\",\"\xff\":1}",
        b"{\"type\":\"assistant\",\"session_id\":\"\xff\"}",
        b"{\"type\":\"\xff\"}",
        br#"{"type":null}"#,
        br#"{"type":3}"#,
        br#"{"subtype":"init"}"#,
        br#"{"type":"system","subtype":"init"}"#,
        br#"{"type":"system","subtype":"init","session_id":7}"#,
        br#"{"type":"control_cancel_request","request_id":"r"}"#,
        br#"{"type":"control_request","request_id":"r","request":{"subtype":"x"}}"#,
        br#"{"type":"control_request","request_id":"r\"q","request":{"subtype":"can_use_tool","input":{"subtype":"no"}}}"#,
        br#"{"type":"control_request","request_id":"r","request":{"a":{"subtype":"inner"},"subtype":"outer"}}"#,
        br#"{"type":"control_request","request_id":"r","request":{"sub\u0074ype":"x"}}"#,
        br#"{"type":"control_request","request_id":"r","request":{"subtype":7}}"#,
        br#"{"type":"control_request","request_id":"r","request":{"subtype":"a\nb"}}"#,
        br#"{"type":"control_request","request_id":"r","request":"text"}"#,
        br#"{"type":"control_request","request_id":"r","request":null}"#,
        br#"{"type":"control_request","request_id":"r","request":[]}"#,
        br#"{"type":"control_request","request_id":"r"}"#,
        br#"{"type":"control_request","request_id":7,"request":{}}"#,
        br#"{"type":"control_request","request":{}}"#,
        br#"{"type":"control_request","request_id":"r","request":{},"request":{}}"#,
        br#"{"type":"control_request","request_id":"r","request_id":"s","request":{}}"#,
        br#"{"type":"control_request","request_id":"r","request":{"subtype":"x","subtype":"y"}}"#,
        b"{\"type\":\"control_request\",\"request_id\":\"r\",\"request\":{\"subtype\":\"x\",\"v\":\"\xff\"}}",
        b"{\"type\":\"control_request\",\"request_id\":\"\xff\",\"request\":{}}",
        br#"{"type":"control_response","response":{"subtype":"success","request_id":"r"}}"#,
        br#"{"type":"control_response","response":{"subtype":"success","request_id":"r","response":null}}"#,
        br#"{"type":"control_response","response":{"subtype":"error","request_id":"r"}}"#,
        br#"{"type":"control_response","response":{"subtype":"error","request_id":"r","error":{"code":1}}}"#,
        br#"{"type":"control_response","response":{"subtype":"error","request_id":"r","error":"a","error":"b"}}"#,
        br#"{"type":"control_response","response":{"subtype":"error","request_id":"r","error":null}}"#,
        br#"{"type":"control_response","response":{"subtype":null,"request_id":"r"}}"#,
        br#"{"type":"control_response","response":{"subtype":7,"request_id":"r"}}"#,
        br#"{"type":"control_response","response":{"request_id":7}}"#,
        br#"{"type":"control_response","response":{"request_id":null}}"#,
        br#"{"type":"control_response","response":{"request_id":"a\u0062"}}"#,
        br#"{"type":"control_response","response":{"req\u0075est_id":"r"}}"#,
        br#"{"type":"control_response","response":{"request_id":"r","type":1,"type":2}}"#,
        br#"{"type":"control_response","response":{"request_id":"r","response":{},"response":{}}}"#,
        br#"{"type":"control_response","response":{"request_id":"r"},"response":{"request_id":"s"}}"#,
        br#"{"type":"control_response","response":{"request_id":"r"},"error":1,"error":2}"#,
        br#"{"type":"control_response","response":"text"}"#,
        br#"{"type":"control_response","response":null}"#,
        br#"{"type":"control_response","response":[]}"#,
        br#"{"type":"control_response"}"#,
        b"{\"type\":\"control_response\",\"response\":{\"request_id\":\"r\",\"x\":\"\xff\"}}",
        b"{\"type\":\"control_response\",\"request\":\"\xff\",\"response\":{\"request_id\":\"r\"}}",
        br#"{"type":"control_cancel_request"}"#,
        br#"{"type":"control_cancel_request","request_id":5}"#,
        br#"{"type":"control_cancel_request","request_id":"a\u0062"}"#,
        ASSISTANT.as_bytes(),
        INIT.as_bytes(),
        REPLY.as_bytes(),
        ERROR_REPLY.as_bytes(),
    ];
    for line in lines {
        let _ = same(line);
    }
}

#[test]
fn agrees_with_serde_on_real_lines_and_their_prefixes() {
    for line in SESSION.lines() {
        assert!(peek(line.as_bytes()).is_ok(), "{line}");
        for end in (1..line.len()).step_by(3) {
            let _ = same(&line.as_bytes()[..end]);
        }
    }
}

#[test]
fn agrees_with_serde_on_mutations() {
    const BYTES: &[u8] = b"\"\\{}[],:0-.eE tnu\x01\xff";
    let (mut routed, mut refused) = (0, 0);
    let mut check = |line: &[u8]| {
        if same(line) {
            routed += 1;
        } else {
            refused += 1;
        }
    };
    for base in [ASSISTANT, INIT, REPLY, ERROR_REPLY] {
        let base = base.as_bytes();
        for i in 0..base.len() {
            let mut deleted = base.to_vec();
            deleted.remove(i);
            check(&deleted);
            for &b in BYTES {
                let mut replaced = base.to_vec();
                replaced[i] = b;
                check(&replaced);
                let mut inserted = base.to_vec();
                inserted.insert(i, b);
                check(&inserted);
            }
        }
    }
    // Both outcomes are well represented, so agreement means something.
    assert!(
        routed > 1000 && refused > 1000,
        "{routed} routed, {refused} refused"
    );
}

#[test]
fn deep_nesting_is_left_to_serde() {
    let deep = format!(
        "{{\"type\":\"assistant\",\"x\":{}{}}}",
        "[".repeat(200),
        "]".repeat(200)
    );
    assert_eq!(scan(deep.as_bytes()), Scan::Undecided);
    assert!(same(deep.as_bytes()));
    let ok = format!(
        "{{\"type\":\"assistant\",\"x\":{}{}}}",
        "[".repeat(100),
        "]".repeat(100)
    );
    assert!(matches!(scan(ok.as_bytes()), Scan::Object(_)));
}

#[test]
fn string_stop_finds_the_first_stop_byte_at_any_offset() {
    let stops = |b: u8| b == b'"' || b == b'\\' || b < 0x20;
    for len in 0..20 {
        for at in 0..len {
            for v in 0..=255u8 {
                let mut buf = vec![b'a'; len];
                buf[at] = v;
                // A later stop byte must not hide the first one.
                if at + 1 < len {
                    buf[len - 1] = b'"';
                }
                for from in 0..=at {
                    let naive = buf[from..].iter().position(|&b| stops(b)).map(|n| from + n);
                    assert_eq!(
                        string_stop(&buf, from),
                        naive,
                        "len {len} at {at} byte {v:#x}"
                    );
                }
            }
        }
    }
    assert_eq!(string_stop(b"", 0), None);
    assert_eq!(string_stop(b"ab", 3), None);
    assert_eq!(string_stop("é€😀x".as_bytes(), 0), None);
}

#[test]
fn a_control_reply_is_scanned_with_its_payload_span() {
    let Scan::Object(m) = scan(REPLY.as_bytes()) else {
        panic!("the reply was not scanned");
    };
    let reply = m.response.expect("the response member");
    assert!(reply.starts_with(br#"{"subtype":"success""#) && reply.ends_with(b"}"));
    let Scan::Object(inner) = scan(reply) else {
        panic!("the reply object was not scanned");
    };
    assert_eq!(inner.request_id, Some(&br#""req_1_ab""#[..]));
    assert!(inner.error.is_none() && !inner.error_twice);
    assert_eq!(
        peek(REPLY.as_bytes()),
        Ok(Envelope::ControlResponse {
            request_id: "req_1_ab".into(),
            outcome: Ok(serde_json::json!({"commands":[],"models":[{"value":"m"}],"pid":7})),
        })
    );
}
