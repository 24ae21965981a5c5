//! Fuzzes the line parser: it never panics, and whatever it accepts
//! serializes to the same JSON value and re-parses to the same value.
#![no_main]

use claude_agent::protocol::parse_line;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// serde_json's default float parser is not exactly round-trip safe (a
/// digit string may parse to an f64 whose shortest print parses to a
/// neighbour), so compare values after one print/parse cycle.
fn normalize(v: &Value) -> Value {
    serde_json::from_str(&v.to_string()).expect("printed json parses")
}

fuzz_target!(|data: &[u8]| {
    let Ok(frame) = parse_line(data) else { return };
    let text = frame.to_json().expect("a parsed frame serializes");
    let written: Value = serde_json::from_str(&text).expect("serialized text is json");
    // Lossless: the serialized frame is the same JSON value as the input.
    let original: Value = serde_json::from_slice(data).expect("accepted input is json");
    assert_eq!(normalize(&written), normalize(&original), "round trip changed the value");
    let again = parse_line(text.as_bytes()).expect("serialized frame re-parses");
    assert_eq!(again.kind(), frame.kind());
    let rewritten: Value = serde_json::from_str(&again.to_json().expect("serializes")).expect("json");
    assert_eq!(normalize(&rewritten), normalize(&written), "re-parse changed the value");
});
