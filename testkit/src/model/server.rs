//! The server handle: binds 127.0.0.1, accepts connections, shuts down on
//! drop.

use super::record::RecordedRequest;
use super::replies::ModelScript;
use super::respond::{Shared, handle};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::task::{JoinHandle, JoinSet};

/// A scripted Anthropic Messages API server on `127.0.0.1` (random free
/// port). Dropping it shuts it down: the accept task is aborted, and with it
/// every open connection, so hung streams close.
pub struct ModelServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    task: JoinHandle<()>,
}

impl std::fmt::Debug for ModelServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelServer")
            .field("addr", &self.addr)
            .field("requests", &self.shared.counts.borrow().0)
            .finish_non_exhaustive()
    }
}

impl Drop for ModelServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl ModelServer {
    /// Binds a free port on 127.0.0.1 and starts serving `script`. Must be
    /// called inside a tokio runtime.
    pub async fn start(script: ModelScript) -> std::io::Result<ModelServer> {
        let listener = TcpListener::bind((std::net::Ipv4Addr::LOCALHOST, 0)).await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared::new(script));
        let task = tokio::spawn(serve(listener, Arc::clone(&shared)));
        Ok(ModelServer { addr, shared, task })
    }

    /// `http://127.0.0.1:PORT`, the value for `ANTHROPIC_BASE_URL`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.requests()
    }

    /// Only the main requests: those with a non-empty `tools` array.
    pub fn main_requests(&self) -> Vec<RecordedRequest> {
        self.requests()
            .into_iter()
            .filter(RecordedRequest::is_main)
            .collect()
    }

    /// Script steps not yet consumed.
    pub fn pending_replies(&self) -> usize {
        self.shared.pending_replies()
    }

    /// Waits until at least `n` requests were recorded; false if `deadline`
    /// passed first.
    pub async fn wait_for_requests(&self, n: usize, deadline: Duration) -> bool {
        self.wait_counts(deadline, |(all, _)| all >= n).await
    }

    /// Waits until at least `n` main requests were recorded; false if
    /// `deadline` passed first.
    pub async fn wait_for_main_requests(&self, n: usize, deadline: Duration) -> bool {
        self.wait_counts(deadline, |(_, main)| main >= n).await
    }

    async fn wait_counts(&self, deadline: Duration, done: impl Fn((usize, usize)) -> bool) -> bool {
        let mut rx = self.shared.counts.subscribe();
        matches!(
            tokio::time::timeout(deadline, rx.wait_for(|c| done(*c))).await,
            Ok(Ok(_))
        )
    }

    /// Environment for running the real CLI against this server:
    /// `ANTHROPIC_BASE_URL`, `ANTHROPIC_API_KEY=test-key`,
    /// `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`, `DISABLE_AUTOUPDATER=1`,
    /// `CLAUDE_CODE_MAX_RETRIES=2`. Add `HOME=<a temp dir>` yourself.
    pub fn env(&self) -> Vec<(String, String)> {
        [
            ("ANTHROPIC_BASE_URL", self.base_url()),
            ("ANTHROPIC_API_KEY", "test-key".into()),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".into()),
            ("DISABLE_AUTOUPDATER", "1".into()),
            ("CLAUDE_CODE_MAX_RETRIES", "2".into()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect()
    }
}

/// Accepts until aborted. Connections live in a `JoinSet` owned by this
/// future, so aborting it aborts them all and closes their sockets.
async fn serve(listener: TcpListener, shared: Arc<Shared>) {
    let mut conns = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    // SSE events are small writes the client should see at once.
                    let _ = stream.set_nodelay(true);
                    let shared = Arc::clone(&shared);
                    conns.spawn(async move {
                        let svc = service_fn(move |req| handle(Arc::clone(&shared), req));
                        // A client hanging up mid-response is an error here and
                        // needs no action.
                        let _ = http1::Builder::new()
                            .serve_connection(TokioIo::new(stream), svc)
                            .await;
                    });
                }
                // Out of file descriptors and the like: back off instead of
                // spinning; the listener stays usable.
                Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
            },
            Some(_) = conns.join_next(), if !conns.is_empty() => {}
        }
    }
}
