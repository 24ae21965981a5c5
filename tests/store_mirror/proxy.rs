//! A TCP proxy a test can cut: connections through it reach a real server
//! until [`Proxy::cut`] closes them all and stops listening, so the next
//! connection is refused: a store server going away mid-session.

use std::net::SocketAddr;

use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

pub(crate) struct Proxy {
    /// Where clients connect.
    pub(crate) addr: SocketAddr,
    accept: JoinHandle<()>,
}

impl Proxy {
    /// Listens on a free local port, forwarding each connection to `upstream`.
    pub(crate) async fn start(upstream: String) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let accept = tokio::spawn(async move {
            // Owned here, so aborting this task closes every connection.
            let mut conns = tokio::task::JoinSet::new();
            while let Ok((mut client, _)) = listener.accept().await {
                let upstream = upstream.clone();
                conns.spawn(async move {
                    if let Ok(mut server) = TcpStream::connect(&upstream).await {
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                    }
                });
            }
        });
        Proxy { addr, accept }
    }

    /// Closes every connection and the listener; waits until they are gone.
    pub(crate) async fn cut(self) {
        self.accept.abort();
        let _ = self.accept.await;
    }
}

/// `url`'s `host:port`, and the text around it.
fn split(url: &str) -> (String, String, String) {
    let (scheme, rest) = url.split_once("://").unwrap();
    let end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let (userinfo, hostport) = match authority.rsplit_once('@') {
        Some((u, h)) => (format!("{u}@"), h),
        None => (String::new(), authority),
    };
    (
        format!("{scheme}://{userinfo}"),
        hostport.to_owned(),
        tail.to_owned(),
    )
}

/// The `host:port` a server URL names.
pub(crate) fn host_port(url: &str) -> String {
    split(url).1
}

/// `url` with its `host:port` replaced by `addr`.
pub(crate) fn through(url: &str, addr: SocketAddr) -> String {
    let (head, _, tail) = split(url);
    format!("{head}{addr}{tail}")
}
