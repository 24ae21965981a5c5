//! A healthy session: ordered start, turns in order, ordered shutdown with
//! no escalation, idempotent reports, and no leftovers.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::HashSet;

use claude_agent_actors::{Escalation, LifecycleEvent, SessionEvent, ShutdownCause, live_sessions};
use claude_agent_testkit::Script;
use common::*;
use futures::StreamExt;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn turn_frames_arrive_in_order_and_shutdown_needs_no_signal() {
    let fx = install(Script::new().expect_initialize().loop_turns("hello there"));
    let mut cfg = fx.config();
    let mut events = cfg.subscribe_events();
    let (session, mut frames) = fx.start_with(cfg).await.unwrap();
    let pid = session.pid().unwrap();
    assert_eq!(pid, fx.pid());
    assert_eq!(session.server_info()["claude_code_version"], "2.1.332");

    for _ in 0..2 {
        session.send(&user("hi")).await.unwrap();
        let turn = read_turn(&mut frames).await;
        let kinds: Vec<&str> = turn.iter().map(|f| f.kind.as_str()).collect();
        assert_eq!(kinds, ["system", "assistant", "result"]);
        assert_eq!(turn[2].to_value().unwrap()["result"], "hello there");
    }
    assert!(
        session.session_id().is_some(),
        "session id from system/init"
    );

    let report = session.shutdown().await;
    assert_eq!(report.cause, ShutdownCause::Requested);
    assert_eq!(report.escalation, Escalation::None);
    assert_eq!(report.exit.unwrap().code, Some(0));
    assert!(report.timings.term_sent.is_none());
    assert!(
        report.timings.total < GRACE,
        "exit on EOF is quick: {:?}",
        report.timings
    );
    assert!(
        frames.next().await.is_none(),
        "no open turn: stream just ends"
    );
    assert_gone(pid);

    // Lifecycle in order. `ShutdownComplete` follows the report's
    // publication, so it may arrive just after `shutdown()` returns.
    let mut seen = vec![];
    let complete = std::mem::discriminant(&LifecycleEvent::ShutdownComplete);
    while !seen.contains(&complete) {
        let e = wait_event(&mut events, |_| true).await;
        if let SessionEvent::Lifecycle(l) = e {
            seen.push(std::mem::discriminant(&l));
        }
    }
    let d = |l: LifecycleEvent| std::mem::discriminant(&l);
    let order = [
        d(LifecycleEvent::Spawned { pid: None }),
        d(LifecycleEvent::Initialized),
        d(LifecycleEvent::ShutdownStarted {
            cause: ShutdownCause::Requested,
        }),
        d(LifecycleEvent::ShutdownComplete),
    ];
    let positions: Vec<usize> = order
        .iter()
        .map(|o| seen.iter().position(|s| s == o).expect("event missing"))
        .collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{seen:?}");
    assert!(seen.contains(&d(LifecycleEvent::StdinClosed)));
    assert!(seen.contains(&d(LifecycleEvent::Exited { exit: None })));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_and_repeated_shutdowns_share_one_report() {
    let fx = install(Script::new().expect_initialize().loop_turns("x"));
    let (session, _frames) = fx.start().await;
    let mut events = session.subscribe_events();
    let (a, b, c) = tokio::join!(session.shutdown(), session.shutdown(), session.closed());
    let d = session.shutdown().await;
    assert_eq!(a, b);
    assert_eq!(a, c);
    assert_eq!(a, d);
    assert!(session.is_closed());
    let mut started = 0;
    while let Ok(e) = events.try_recv() {
        if matches!(
            e,
            SessionEvent::Lifecycle(LifecycleEvent::ShutdownStarted { .. })
        ) {
            started += 1;
        }
    }
    assert_eq!(started, 1, "one shutdown sequence only");
    assert!(matches!(
        session.send(&user("late")).await,
        Err(claude_agent_actors::SessionError::ShuttingDown)
    ));
    assert!(matches!(
        session.request(json!({"subtype":"interrupt"}), None).await,
        Err(claude_agent_actors::ControlError::ShuttingDown)
    ));
    assert_gone(fx.pid());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_the_last_handle_shuts_down_in_order() {
    let baseline = alive_tasks();
    let fx = install(Script::new().expect_initialize().loop_turns("x"));
    let (session, mut frames) = fx.start().await;
    let pid = session.pid().unwrap();
    let mut events = session.subscribe_events();
    let id = live_sessions()
        .iter()
        .find(|s| s.pid == Some(pid))
        .expect("registered")
        .id;
    let clone = session.clone();
    drop(session);
    assert_running(pid); // a clone is still alive
    drop(clone);
    let e = wait_event(&mut events, |e| {
        matches!(
            e,
            SessionEvent::Lifecycle(LifecycleEvent::ShutdownStarted { .. })
        )
    })
    .await;
    assert_eq!(
        e,
        SessionEvent::Lifecycle(LifecycleEvent::ShutdownStarted {
            cause: ShutdownCause::HandleDropped
        })
    );
    assert!(next_frame(&mut frames).await.is_none());
    assert_gone(pid);
    // The report is published (and the session unregistered) once the
    // process is reaped, which can come a moment after stdout's end.
    wait_event(&mut events, |e| {
        matches!(e, SessionEvent::Lifecycle(LifecycleEvent::ShutdownComplete))
    })
    .await;
    assert!(live_sessions().iter().all(|s| s.id != id), "unregistered");
    drop(frames);
    assert_tasks_back_to(baseline).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn control_requests_pair_by_id_and_ids_are_unique() {
    let fx = install(
        Script::new()
            .auto_reply("interrupt", json!({"still_queued": []}))
            .auto_reply("set_model", json!({}))
            .expect_initialize()
            .loop_turns("x"),
    );
    let (session, _frames) = fx.start().await;
    let calls = (0..20).map(|i| {
        let s = session.clone();
        async move {
            let sub = if i % 2 == 0 { "interrupt" } else { "set_model" };
            s.request(json!({"subtype": sub, "model": null}), None)
                .await
        }
    });
    let replies = futures::future::join_all(calls).await;
    for (i, r) in replies.iter().enumerate() {
        let v = r.as_ref().unwrap();
        if i % 2 == 0 {
            assert_eq!(v, &json!({"still_queued": []}));
        } else {
            assert_eq!(v, &json!({}));
        }
    }
    let ids: Vec<String> = fx
        .recorded()
        .iter()
        .filter(|v| v["type"] == "control_request")
        .map(|v| v["request_id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids.len(), 21, "initialize + 20");
    assert_eq!(ids.iter().collect::<HashSet<_>>().len(), 21, "unique ids");
    assert!(ids.iter().all(|id| {
        let parts: Vec<&str> = id.split('_').collect();
        parts.len() == 3 && parts[0] == "req" && parts[2].len() == 8
    }));
    // Nothing else was written: each request is one line.
    assert_eq!(session.stats().frames_out, 21);
    let report = session.shutdown().await;
    assert_eq!(report.requests_failed, 0);
    assert_gone(fx.pid());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn error_reply_becomes_remote_error_and_timeout_is_typed() {
    let fx = install(
        Script::new()
            .step(json!({"op":"auto","rules":[{"subtype":"set_model","reply_error":"no such model"}]}))
            .expect_initialize()
            .loop_turns("x"),
    );
    let (session, _frames) = fx.start().await;
    let err = session
        .request(json!({"subtype":"set_model","model":"nope"}), None)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, claude_agent_actors::ControlError::Remote { message } if message == "no such model"),
        "{err}"
    );
    // No rule for this subtype: the fake records it and never answers.
    let t = std::time::Duration::from_millis(200);
    let err = session
        .request(json!({"subtype":"mcp_status"}), Some(t))
        .await
        .unwrap_err();
    assert!(matches!(err, claude_agent_actors::ControlError::Timeout { after, .. } if after == t));
    let deadline = std::time::Instant::now() + SOON;
    while session.stats().requests_pending != 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "timed-out request never forgotten"
        );
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    session.shutdown().await;
    assert_gone(fx.pid());
}
