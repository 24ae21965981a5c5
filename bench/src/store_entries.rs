//! Transcript entries for the store benchmark: the lines of a real CLI
//! session file from `testdata/` (the ones the CLI mirrors), cycled into
//! batches of any size, each entry with a fresh uuid so no store skips it
//! as already stored.

use std::path::Path;

use claude_agent::store::StoreEntry;
use serde_json::Value;

use crate::{BenchError, Result};

/// The real session file the entries come from (CLI 2.1.332, the
/// `session_mirror` scenario: two turns, attachments, tool lists).
pub const FIXTURE: &str = "testdata/claude-code-2.1.332/session_mirror/local-session.jsonl";

/// The fixture's entries, to be cycled into batches.
#[derive(Debug)]
pub struct Entries {
    templates: Vec<Value>,
    /// Entries handed out so far: the next entry's position and uuid.
    next: u64,
    /// Distinguishes this run's uuids from another run's.
    run: u32,
}

impl Entries {
    /// Reads the fixture under `root`, keeping the entries the CLI mirrors
    /// (it does not mirror its local `api-request*` cache lines).
    pub fn load(root: &Path) -> Result<Self> {
        let path = root.join(FIXTURE);
        let text = std::fs::read_to_string(&path).map_err(|source| BenchError::Io {
            what: format!("read {}", path.display()),
            source,
        })?;
        let templates: Vec<Value> = text
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(|e| {
                !e["type"]
                    .as_str()
                    .is_some_and(|t| t.starts_with("api-request"))
            })
            .collect();
        if templates.is_empty() {
            return Err(BenchError::Session(format!(
                "no entries in {}",
                path.display()
            )));
        }
        Ok(Self {
            templates,
            next: 0,
            run: std::process::id(),
        })
    }

    /// How many distinct entries the fixture gives.
    pub fn len(&self) -> usize {
        self.templates.len()
    }

    /// Whether the fixture gave no entries (never, once loaded).
    pub fn is_empty(&self) -> bool {
        self.templates.is_empty()
    }

    /// Mean size of an entry as JSON text, in bytes.
    pub fn mean_bytes(&self) -> f64 {
        let total: usize = self.templates.iter().map(|e| e.to_string().len()).sum();
        total as f64 / self.templates.len() as f64
    }

    /// The next `n` entries in fixture order (wrapping around); an entry
    /// that has a uuid gets a new one, unique in this run.
    pub fn batch(&mut self, n: usize) -> Vec<StoreEntry> {
        (0..n)
            .map(|_| {
                let i = self.next;
                self.next += 1;
                let mut entry = self.templates[(i % self.templates.len() as u64) as usize].clone();
                if entry.get("uuid").is_some_and(Value::is_string) {
                    entry["uuid"] =
                        Value::String(format!("{:08x}-0000-4000-8000-{:012x}", self.run, i));
                }
                StoreEntry::from_value(&entry)
            })
            .collect()
    }
}
