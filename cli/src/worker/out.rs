//! The worker's output: one line per job event, JSON (`--json`, stdout)
//! or text (stderr), written by a thread of its own so a slow reader
//! never blocks the async workers.

use std::io::Write;
use std::sync::Arc;

use serde_json::Value;
use tokio::sync::{Mutex, mpsc};

/// Lines waiting to be written; a full queue makes the job task wait.
const QUEUE: usize = 1024;

/// A line for stdout (`true`) or stderr; `None` ends the writer.
type Line = Option<(bool, String)>;

#[derive(Clone)]
pub(crate) struct Out {
    tx: mpsc::Sender<Line>,
    json: bool,
    writer: Arc<Mutex<Option<std::thread::JoinHandle<()>>>>,
}

impl Out {
    pub(crate) fn start(json: bool) -> Self {
        let (tx, mut rx) = mpsc::channel::<Line>(QUEUE);
        let writer = std::thread::spawn(move || {
            while let Some(Some((to_stdout, line))) = rx.blocking_recv() {
                // Nothing better to do when stdout/stderr are gone.
                if to_stdout {
                    let mut out = std::io::stdout().lock();
                    let _ = writeln!(out, "{line}");
                    let _ = out.flush();
                } else {
                    let _ = writeln!(std::io::stderr().lock(), "{line}");
                }
            }
        });
        Self {
            tx,
            json,
            writer: Arc::new(Mutex::new(Some(writer))),
        }
    }

    /// An event: `json` with `--json`, else `text` on stderr.
    pub(crate) async fn emit(&self, json: Value, text: String) {
        let _ = self.tx.send(Some(self.line(json, text))).await;
    }

    /// [`emit`](Self::emit) without waiting: from a callback that must not
    /// block (a full queue drops the line).
    pub(crate) fn emit_now(&self, json: Value, text: String) {
        let _ = self.tx.try_send(Some(self.line(json, text)));
    }

    fn line(&self, json: Value, text: String) -> (bool, String) {
        if self.json {
            (true, json.to_string())
        } else {
            (false, format!("claude-agent worker: {text}"))
        }
    }

    /// A note for a person (stderr), in either mode.
    pub(crate) async fn note(&self, text: &str) {
        let _ = self
            .tx
            .send(Some((false, format!("claude-agent worker: {text}"))))
            .await;
    }

    /// Writes what is queued and stops the writer (whatever clones are
    /// still around).
    pub(crate) async fn close(self) {
        let writer = self.writer.lock().await.take();
        let _ = self.tx.send(None).await;
        if let Some(w) = writer {
            let join = tokio::task::spawn_blocking(move || w.join());
            let _ = tokio::time::timeout(std::time::Duration::from_secs(5), join).await;
        }
    }
}
