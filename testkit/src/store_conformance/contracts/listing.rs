//! The contracts of `list_sessions` and `list_session_summaries`.

use claude_agent::store::{SessionKey, SessionStore, fold_session_summary};
use serde_json::{Value, json};

use super::super::Has;
use super::*;

// 7
pub(super) async fn list_sessions_lists_the_projects_sessions(
    store: &dyn SessionStore,
    _: Has,
) -> Outcome {
    for (project, session) in [("proj", "a"), ("proj", "b"), ("other", "c")] {
        append(
            store,
            &SessionKey::new(project, session),
            vec![e(json!({"n": 1}))],
        )
        .await?;
    }
    let listed = call("list_sessions(proj)".into(), store.list_sessions("proj")).await?;
    let mut ids: Vec<&str> = listed.iter().map(|s| s.session_id.as_str()).collect();
    ids.sort_unstable();
    ensure(ids == ["a", "b"], || {
        format!("list_sessions(proj) returned {ids:?} instead of [\"a\", \"b\"]")
    })?;
    // Epoch milliseconds: more than 1e12 rules out seconds.
    ensure(listed.iter().all(|s| s.mtime > 1_000_000_000_000), || {
        format!("list_sessions mtimes are not epoch milliseconds: {listed:?}")
    })?;
    let none = session_ids(store, "never-appended-project").await?;
    ensure(none.is_empty(), || {
        format!("list_sessions of an unknown project returned {none:?}")
    })
}

// 8
pub(super) async fn list_sessions_excludes_subpaths(store: &dyn SessionStore, _: Has) -> Outcome {
    let main = SessionKey::new("proj", "main");
    append(store, &main, vec![e(json!({"n": 1}))]).await?;
    append(
        store,
        &main.clone().with_subpath("subagents/agent-1"),
        vec![e(json!({"n": 1}))],
    )
    .await?;
    let ids = session_ids(store, "proj").await?;
    ensure(ids == ["main"], || {
        format!("list_sessions(proj) returned {ids:?} instead of [\"main\"]")
    })
}

// 14
pub(super) async fn summaries_persist_the_fold_verbatim(
    store: &dyn SessionStore,
    has: Has,
) -> Outcome {
    let key = SessionKey::new("proj", "summ-sess");
    append(
        store,
        &key,
        vec![
            e(json!({"timestamp": "2024-01-01T00:00:00.000Z", "customTitle": "first"})),
            e(json!({"timestamp": "2024-01-01T00:00:01.000Z"})),
        ],
    )
    .await?;
    append(
        store,
        &key,
        vec![e(
            json!({"timestamp": "2024-01-01T00:00:02.000Z", "customTitle": "second"}),
        )],
    )
    .await?;
    append(
        store,
        &SessionKey::new("other", "elsewhere"),
        vec![e(json!({"timestamp": "2024-01-01T00:00:00.000Z"}))],
    )
    .await?;
    let summaries = call(
        "list_session_summaries(proj)".into(),
        store.list_session_summaries("proj"),
    )
    .await?;
    let ids: Vec<&str> = summaries.iter().map(|s| s.session_id.as_str()).collect();
    ensure(ids == ["summ-sess"], || {
        format!("list_session_summaries(proj) listed {ids:?} instead of [\"summ-sess\"]")
    })?;
    let summary = &summaries[0];
    ensure(summary.mtime > 1_000_000_000_000, || {
        format!("summary mtime {} is not epoch milliseconds", summary.mtime)
    })?;
    let expected = {
        let folded = fold_session_summary(
            None,
            &key,
            &[
                e(json!({"timestamp": "2024-01-01T00:00:00.000Z", "customTitle": "first"})),
                e(json!({"timestamp": "2024-01-01T00:00:01.000Z"})),
            ],
        );
        fold_session_summary(
            Some(&folded),
            &key,
            &[e(
                json!({"timestamp": "2024-01-01T00:00:02.000Z", "customTitle": "second"}),
            )],
        )
        .data
    };
    ensure(summary.data == expected, || {
        format!(
            "summary data {} is not the fold of the appends {}",
            Value::Object(summary.data.clone()),
            Value::Object(expected.clone())
        )
    })?;
    if has.list_sessions {
        let listed = call("list_sessions(proj)".into(), store.list_sessions("proj")).await?;
        let listed_mtime = listed
            .iter()
            .find(|s| s.session_id == "summ-sess")
            .map(|s| s.mtime);
        ensure(listed_mtime.is_some_and(|m| summary.mtime >= m), || {
            format!(
                "summary mtime {} is older than the listed mtime {listed_mtime:?}: not the store's write clock",
                summary.mtime
            )
        })?;
    }
    let refolded = fold_session_summary(
        Some(summary),
        &key,
        &[e(json!({"timestamp": "2024-01-01T00:00:03.000Z"}))],
    );
    ensure(
        refolded.session_id == "summ-sess" && refolded.mtime == summary.mtime,
        || "the persisted summary does not fold again into itself".into(),
    )?;
    append(
        store,
        &key.clone().with_subpath("subagents/agent-1"),
        vec![e(
            json!({"timestamp": "2024-01-01T00:00:09.000Z", "customTitle": "subagent"}),
        )],
    )
    .await?;
    let after = call(
        "list_session_summaries(proj)".into(),
        store.list_session_summaries("proj"),
    )
    .await?;
    ensure(after.len() == 1 && after[0].data == summary.data, || {
        format!("a subpath append changed the session's summary: {after:?}")
    })?;
    let none = call(
        "list_session_summaries".into(),
        store.list_session_summaries("never-appended-project"),
    )
    .await?;
    ensure(none.is_empty(), || {
        format!("summaries of an unknown project: {none:?}")
    })?;
    if has.delete {
        call(format!("delete {key}"), store.delete(&key)).await?;
        let left = call(
            "list_session_summaries(proj)".into(),
            store.list_session_summaries("proj"),
        )
        .await?;
        ensure(left.is_empty(), || {
            format!("delete left the summary behind: {left:?}")
        })?;
    }
    Ok(())
}
