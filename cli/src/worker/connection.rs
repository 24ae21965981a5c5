//! The worker's NATS connection as its operator sees it: a line when it
//! is lost and when it is back (the client reconnects by itself; jobs
//! running meanwhile go on, their acks wait for the connection).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use claude_agent::fleet::async_nats::{ConnectOptions, Event};
use serde_json::json;

use super::out::Out;

/// Client options whose event callback reports on `out`.
pub(crate) fn options(out: Out, url: &str) -> ConnectOptions {
    let url = url.to_owned();
    // The first `Connected` is the initial connection, not a reconnect.
    let lost = Arc::new(AtomicBool::new(false));
    ConnectOptions::new().event_callback(move |event| {
        report(&out, &url, &lost, &event);
        std::future::ready(())
    })
}

fn report(out: &Out, url: &str, lost: &AtomicBool, event: &Event) {
    match event {
        Event::Disconnected => {
            lost.store(true, Ordering::SeqCst);
            out.emit_now(
                json!({"kind": "nats_disconnected", "url": url}),
                format!("lost the connection to NATS at {url}; reconnecting (running jobs go on)"),
            );
        }
        Event::Connected if lost.swap(false, Ordering::SeqCst) => out.emit_now(
            json!({"kind": "nats_reconnected", "url": url}),
            format!("reconnected to NATS at {url}"),
        ),
        // Closing and draining are the worker's own doing (a failed
        // start drops the client too).
        Event::Connected | Event::Closed | Event::Draining => {}
        // Each failed reconnect attempt: the lost line said it already.
        Event::ClientError(_) if lost.load(Ordering::SeqCst) => {}
        other => out.emit_now(
            json!({"kind": "nats_event", "url": url, "event": other.to_string()}),
            format!("NATS at {url}: {other}"),
        ),
    }
}
