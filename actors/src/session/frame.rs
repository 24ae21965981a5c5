//! One stdout line for the consumer.

use bytes::Bytes;

/// One stdout line for the consumer: its envelope `type` and its raw bytes
/// (without the newline). The line has been checked to be a JSON object
/// with a string `type`; parsing it for meaning is the consumer's job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// The frame's `type` (e.g. `"assistant"`, `"result"`, `"system"`).
    pub kind: String,
    /// The raw line.
    pub line: Bytes,
}

impl Frame {
    /// Parses the line into a `serde_json::Value` (convenience; typed
    /// parsing belongs to the SDK layer).
    pub fn to_value(&self) -> Result<serde_json::Value, serde_json::Error> {
        serde_json::from_slice(&self.line)
    }
}
