#![allow(dead_code)]
//! A TCP proxy a test can cut or stall: connections through it reach a
//! real server until [`Proxy::cut`] closes them all and stops listening, so
//! the next connection is refused (a store server going away mid-session),
//! or while [`Proxy::stall`] holds every byte in either direction (a
//! server, or the network to it, that stops answering without closing).

use std::net::SocketAddr;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinHandle;

pub(crate) struct Proxy {
    /// Where clients connect.
    pub(crate) addr: SocketAddr,
    accept: JoinHandle<()>,
    stalled: watch::Sender<bool>,
}

impl Proxy {
    /// Listens on a free local port, forwarding each connection to `upstream`.
    pub(crate) async fn start(upstream: String) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stalled, gate) = watch::channel(false);
        let accept = tokio::spawn(async move {
            // Owned here, so aborting this task closes every connection.
            let mut conns = tokio::task::JoinSet::new();
            while let Ok((client, _)) = listener.accept().await {
                let upstream = upstream.clone();
                let gate = gate.clone();
                conns.spawn(async move {
                    if let Ok(server) = TcpStream::connect(&upstream).await {
                        let (cr, cw) = client.into_split();
                        let (sr, sw) = server.into_split();
                        tokio::join!(pipe(cr, sw, gate.clone()), pipe(sr, cw, gate));
                    }
                });
            }
        });
        Proxy {
            addr,
            accept,
            stalled,
        }
    }

    /// From now on nothing goes through (connections stay open, new ones
    /// are accepted and get nothing) until [`resume`](Self::resume).
    pub(crate) fn stall(&self) {
        self.stalled.send_replace(true);
    }

    /// Lets what was held, and everything after it, through again.
    pub(crate) fn resume(&self) {
        self.stalled.send_replace(false);
    }

    /// Closes every connection and the listener; waits until they are gone.
    pub(crate) async fn cut(self) {
        self.accept.abort();
        let _ = self.accept.await;
    }
}

/// Copies `from` to `to`, holding each read while the proxy is stalled.
async fn pipe(mut from: OwnedReadHalf, mut to: OwnedWriteHalf, mut gate: watch::Receiver<bool>) {
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if gate.wait_for(|stalled| !*stalled).await.is_err()
            || to.write_all(&buf[..n]).await.is_err()
        {
            break;
        }
    }
    let _ = to.shutdown().await;
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
