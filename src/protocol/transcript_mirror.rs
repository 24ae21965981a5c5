//! `transcript_mirror` messages (`--session-mirror`).

use serde_json::Value;

wire_struct! {
    /// A `transcript_mirror` line: a batch of lines the CLI just wrote to a
    /// session file, for a session store to keep (docs/PROTOCOL.md,
    /// "Session mirror").
    #[derive(Default)]
    pub struct TranscriptMirror = "transcript_mirror", builder TranscriptMirrorBuilder {
        /// The session file written (a subagent's has its own).
        file_path: opt String = "filePath",
        /// The file's new JSON lines, unchanged.
        entries: opt Vec<Value> = "entries",
    }
}
