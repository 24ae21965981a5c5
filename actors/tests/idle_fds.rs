//! An idle session holds three file descriptors: the CLI's stdin, stdout
//! and stderr pipes. The pidfd its exit is awaited on is opened only once
//! the CLI's stdout closed (or it was signalled), and every descriptor is
//! closed again when the sessions end.
//!
//! One test in this binary: the count is of the whole process's
//! `/proc/self/fd`, which a test running beside it would disturb.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use claude_agent_actors::Escalation;
use claude_agent_testkit::Script;
use common::*;

const SESSIONS: usize = 40;

use std::collections::HashSet;

/// This process's open descriptors, each with what it points at (a pipe's
/// inode, `anon_inode:[pidfd]`, ...), so a descriptor closed and its
/// number reused in between counts as a new one. The listing's own
/// descriptor is left out.
fn open_fds() -> HashSet<(String, String)> {
    std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(|e| {
            let e = e.ok()?;
            let target = std::fs::read_link(e.path()).ok()?;
            let target = target.to_string_lossy().into_owned();
            (!target.starts_with("/proc/"))
                .then(|| (e.file_name().to_string_lossy().into_owned(), target))
        })
        .collect()
}

/// How many of `fds` point at each kind of thing (`pipe`, `anon_inode`, ...).
fn kinds(fds: &HashSet<(String, String)>) -> std::collections::BTreeMap<String, usize> {
    let mut out = std::collections::BTreeMap::new();
    for (_, target) in fds {
        let kind = target.split(':').next().unwrap_or(target);
        *out.entry(kind.to_owned()).or_default() += 1;
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_sessions_hold_three_fds_each_and_release_them() {
    let fx = install(Script::new().expect_initialize().loop_turns("ok"));
    // One session first, so the process-wide pieces (the keeper and its
    // pipe, the runtime's signal pipe) exist before the count.
    let (warm, mut warm_stream) = fx.start().await;
    warm.send(&user("hi")).await.unwrap();
    read_turn(&mut warm_stream).await;
    assert_eq!(warm.shutdown().await.escalation, Escalation::None);
    drop(warm_stream);

    let before = open_fds();
    let mut sessions = Vec::with_capacity(SESSIONS);
    for _ in 0..SESSIONS {
        let (session, mut stream) = fx.start().await;
        // A whole turn: the session is connected and idle afterwards.
        session.send(&user("hi")).await.unwrap();
        read_turn(&mut stream).await;
        sessions.push((session, stream));
    }
    // What the sessions opened (a descriptor of the warm-up session that
    // closes meanwhile is not counted, nor is its number's reuse missed).
    let opened: HashSet<_> = open_fds().difference(&before).cloned().collect();
    assert_eq!(
        opened.len(),
        3 * SESSIONS,
        "{SESSIONS} idle sessions hold {} file descriptors: {:?}",
        opened.len(),
        kinds(&opened)
    );
    assert_eq!(kinds(&opened).keys().collect::<Vec<_>>(), ["pipe"]);

    for (session, _stream) in &sessions {
        assert_eq!(session.shutdown().await.escalation, Escalation::None);
    }
    drop(sessions);
    // The actors close what they own as they stop; wait for it.
    let deadline = Instant::now() + SOON;
    loop {
        let left: Vec<_> = open_fds().intersection(&opened).cloned().collect();
        if left.is_empty() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{} file descriptors left after the sessions ended",
            left.len()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}
