//! The in-memory channel: both directions, terminate, kill, exit reporting.
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::{DuplexTransport, Transport};
use crate::process::ExitInfo;

const DEADLINE: Duration = Duration::from_secs(10);

#[tokio::test]
async fn round_trip_terminate_and_exit() {
    let (transport, mut cli) = DuplexTransport::new(1024);
    assert_eq!(transport.kind(), "duplex");
    let mut conn = Box::new(transport).connect().await.unwrap();
    assert_eq!((conn.control.pid(), conn.control.pgid()), (None, None));
    assert!(!conn.control.supports_signals());

    conn.writer.write_all(b"to-cli\n").await.unwrap();
    let mut buf = [0u8; 7];
    cli.stdin.read_exact(&mut buf).await.unwrap();
    assert_eq!(&buf, b"to-cli\n");

    cli.stdout.write_all(b"from-cli\n").await.unwrap();
    cli.stderr.write_all(b"warn\n").await.unwrap();
    let mut buf = [0u8; 9];
    conn.reader.read_exact(&mut buf).await.unwrap();
    assert_eq!(&buf, b"from-cli\n");
    let mut buf = [0u8; 5];
    conn.stderr
        .as_mut()
        .unwrap()
        .read_exact(&mut buf)
        .await
        .unwrap();
    assert_eq!(&buf, b"warn\n");

    // terminate = the far end sees EOF on its stdin.
    assert_eq!(conn.control.try_wait().unwrap(), None);
    conn.control.terminate().unwrap();
    let mut rest = Vec::new();
    cli.stdin.read_to_end(&mut rest).await.unwrap();
    assert!(rest.is_empty());
    assert!(conn.writer.write_all(b"late").await.is_err());

    cli.exit(0);
    let exit = tokio::time::timeout(DEADLINE, conn.control.wait())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        exit,
        ExitInfo {
            code: Some(0),
            signal: None
        }
    );
}

#[tokio::test]
async fn kill_wakes_a_pending_reader_and_breaks_the_far_end() {
    let (transport, mut cli) = DuplexTransport::new(1024);
    let mut conn = Box::new(transport).connect().await.unwrap();
    let mut reader = conn.reader;
    let pending = tokio::spawn(async move {
        let mut buf = Vec::new();
        reader.read_to_end(&mut buf).await.map(|_| buf)
    });
    // Current-thread runtime: yielding runs the reader until it parks on
    // the empty pipe, so `kill` below must wake it.
    tokio::task::yield_now().await;
    conn.control.kill().unwrap();
    let got = tokio::time::timeout(DEADLINE, pending)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(got.is_empty());
    assert!(cli.stdout.write_all(b"x").await.is_err());
    let exit = tokio::time::timeout(DEADLINE, conn.control.wait())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        exit,
        ExitInfo {
            code: None,
            signal: None
        }
    );
    conn.control.cleanup().unwrap();
}

#[tokio::test]
async fn dropping_the_far_end_ends_the_channel() {
    let (transport, cli) = DuplexTransport::new(64);
    let mut conn = Box::new(transport).connect().await.unwrap();
    drop(cli);
    let exit = tokio::time::timeout(DEADLINE, conn.control.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(!exit.success());
    let mut buf = Vec::new();
    conn.reader.read_to_end(&mut buf).await.unwrap();
    assert!(buf.is_empty());
}
