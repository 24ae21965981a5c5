//! The contracts, one function each, numbered as in the official SDKs'
//! suites (the uuid contract is this crate's addition).

use std::future::Future;

use claude_agent::store::{SessionKey, SessionStore, StoreEntry, StoreError, fold_session_summary};
use futures::future::BoxFuture;
use serde_json::{Value, json};

use super::{Has, Optional};

/// One contract: its name, the optional methods it cannot run without,
/// and its check.
pub(super) struct Contract {
    pub(super) name: &'static str,
    pub(super) needs: &'static [Optional],
    pub(super) check: for<'a> fn(&'a dyn SessionStore, Has) -> BoxFuture<'a, Outcome>,
}

pub(super) struct Failure {
    pub(super) problem: String,
    pub(super) source: Option<StoreError>,
}

pub(super) type Outcome = Result<(), Failure>;

macro_rules! contract {
    ($name:ident, [$($need:ident),*]) => {
        Contract {
            name: stringify!($name),
            needs: &[$(Optional::$need),*],
            check: |store, has| Box::pin($name(store, has)),
        }
    };
}

/// Every contract, in the official suite's order.
pub(super) const ALL: [Contract; 15] = [
    contract!(append_then_load_round_trips, []),
    contract!(load_of_unknown_key_is_none, []),
    contract!(appends_keep_call_order, []),
    contract!(empty_append_is_a_no_op, []),
    contract!(subpaths_are_stored_apart_from_main, []),
    contract!(project_keys_are_isolated, []),
    contract!(list_sessions_lists_the_projects_sessions, [ListSessions]),
    contract!(list_sessions_excludes_subpaths, [ListSessions]),
    contract!(summaries_persist_the_fold_verbatim, [ListSessionSummaries]),
    contract!(delete_main_then_load_is_none, [Delete]),
    contract!(delete_main_cascades_to_subkeys, [Delete]),
    contract!(delete_subpath_removes_only_it, [Delete]),
    contract!(list_subkeys_lists_subpaths, [ListSubkeys]),
    contract!(list_subkeys_excludes_main, [ListSubkeys]),
    contract!(uuid_is_an_idempotency_key, []),
];

fn key() -> SessionKey {
    SessionKey::new("proj", "sess")
}

/// A test entry: `{"type": "x", ...fields}`.
fn e(fields: Value) -> StoreEntry {
    let mut entry = json!({"type": "x"});
    if let (Some(entry), Value::Object(fields)) = (entry.as_object_mut(), fields) {
        entry.extend(fields);
    }
    entry
}

async fn call<T>(
    what: String,
    op: impl Future<Output = Result<T, StoreError>>,
) -> Result<T, Failure> {
    op.await.map_err(|e| Failure {
        problem: format!("{what} failed"),
        source: Some(e),
    })
}

fn ensure(ok: bool, problem: impl FnOnce() -> String) -> Outcome {
    if ok {
        Ok(())
    } else {
        Err(Failure {
            problem: problem(),
            source: None,
        })
    }
}

async fn append(store: &dyn SessionStore, key: &SessionKey, entries: Vec<StoreEntry>) -> Outcome {
    call(format!("append to {key}"), store.append(key, &entries)).await
}

async fn load(
    store: &dyn SessionStore,
    key: &SessionKey,
) -> Result<Option<Vec<StoreEntry>>, Failure> {
    call(format!("load {key}"), store.load(key)).await
}

async fn expect_loaded(
    store: &dyn SessionStore,
    key: &SessionKey,
    expected: Option<Vec<StoreEntry>>,
) -> Outcome {
    let loaded = load(store, key).await?;
    ensure(loaded == expected, || {
        format!(
            "load {key} returned {} instead of {}",
            show(&loaded),
            show(&expected)
        )
    })
}

async fn expect_len(store: &dyn SessionStore, key: &SessionKey, len: usize) -> Outcome {
    let loaded = load(store, key).await?;
    ensure(loaded.as_ref().map(Vec::len) == Some(len), || {
        format!(
            "load {key} returned {} instead of {len} entries",
            show(&loaded)
        )
    })
}

fn show(entries: &Option<Vec<StoreEntry>>) -> String {
    match entries {
        None => "None".into(),
        Some(entries) => Value::Array(entries.clone()).to_string(),
    }
}

async fn session_ids(store: &dyn SessionStore, project: &str) -> Result<Vec<String>, Failure> {
    let listed = call(
        format!("list_sessions({project})"),
        store.list_sessions(project),
    )
    .await?;
    let mut ids: Vec<String> = listed.into_iter().map(|s| s.session_id).collect();
    ids.sort();
    Ok(ids)
}

async fn subkeys(store: &dyn SessionStore, key: &SessionKey) -> Result<Vec<String>, Failure> {
    let mut keys = call(
        format!("list_subkeys({key})"),
        store.list_subkeys(&key.project_key, &key.session_id),
    )
    .await?;
    keys.sort();
    Ok(keys)
}

// 1
async fn append_then_load_round_trips(store: &dyn SessionStore, _: Has) -> Outcome {
    let entries = vec![
        e(json!({"uuid": "b", "n": 1})),
        e(json!({"uuid": "a", "n": 2})),
    ];
    append(store, &key(), entries.clone()).await?;
    expect_loaded(store, &key(), Some(entries)).await
}

// 2
async fn load_of_unknown_key_is_none(store: &dyn SessionStore, _: Has) -> Outcome {
    expect_loaded(store, &SessionKey::new("proj", "nope"), None).await?;
    append(store, &key(), vec![e(json!({"uuid": "x", "n": 1}))]).await?;
    expect_loaded(store, &key().with_subpath("nope"), None).await
}

// 3
async fn appends_keep_call_order(store: &dyn SessionStore, _: Has) -> Outcome {
    let all =
        [("z", 1), ("a", 2), ("m", 3), ("b", 4)].map(|(uuid, n)| e(json!({"uuid": uuid, "n": n})));
    append(store, &key(), all[..1].to_vec()).await?;
    append(store, &key(), all[1..3].to_vec()).await?;
    append(store, &key(), all[3..].to_vec()).await?;
    expect_loaded(store, &key(), Some(all.to_vec())).await
}

// 4
async fn empty_append_is_a_no_op(store: &dyn SessionStore, _: Has) -> Outcome {
    append(store, &key(), vec![e(json!({"uuid": "a", "n": 1}))]).await?;
    append(store, &key(), vec![]).await?;
    expect_loaded(store, &key(), Some(vec![e(json!({"uuid": "a", "n": 1}))])).await
}

// 5
async fn subpaths_are_stored_apart_from_main(store: &dyn SessionStore, _: Has) -> Outcome {
    let sub = key().with_subpath("subagents/agent-1");
    append(store, &key(), vec![e(json!({"uuid": "m", "n": 1}))]).await?;
    append(store, &sub, vec![e(json!({"uuid": "s", "n": 1}))]).await?;
    expect_loaded(store, &key(), Some(vec![e(json!({"uuid": "m", "n": 1}))])).await?;
    expect_loaded(store, &sub, Some(vec![e(json!({"uuid": "s", "n": 1}))])).await
}

// 6
async fn project_keys_are_isolated(store: &dyn SessionStore, has: Has) -> Outcome {
    let (a, b) = (SessionKey::new("A", "s1"), SessionKey::new("B", "s1"));
    append(store, &a, vec![e(json!({"from": "A"}))]).await?;
    append(store, &b, vec![e(json!({"from": "B"}))]).await?;
    expect_loaded(store, &a, Some(vec![e(json!({"from": "A"}))])).await?;
    expect_loaded(store, &b, Some(vec![e(json!({"from": "B"}))])).await?;
    if has.list_sessions {
        for project in ["A", "B"] {
            let ids = session_ids(store, project).await?;
            ensure(ids == ["s1"], || {
                format!("list_sessions({project}) returned {ids:?} instead of [\"s1\"]")
            })?;
        }
    }
    Ok(())
}

// 7
async fn list_sessions_lists_the_projects_sessions(store: &dyn SessionStore, _: Has) -> Outcome {
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
async fn list_sessions_excludes_subpaths(store: &dyn SessionStore, _: Has) -> Outcome {
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
async fn summaries_persist_the_fold_verbatim(store: &dyn SessionStore, has: Has) -> Outcome {
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

// 9
async fn delete_main_then_load_is_none(store: &dyn SessionStore, _: Has) -> Outcome {
    call(
        "delete of a key never written".into(),
        store.delete(&SessionKey::new("proj", "never-written")),
    )
    .await?;
    append(store, &key(), vec![e(json!({"n": 1}))]).await?;
    call("delete".into(), store.delete(&key())).await?;
    expect_loaded(store, &key(), None).await
}

// 10
async fn delete_main_cascades_to_subkeys(store: &dyn SessionStore, has: Has) -> Outcome {
    let sub1 = key().with_subpath("subagents/agent-1");
    let sub2 = key().with_subpath("subagents/agent-2");
    let other = SessionKey::new("proj", "sess2");
    let other_project = SessionKey::new("other-proj", "sess");
    for k in [&key(), &sub1, &sub2, &other, &other_project] {
        append(store, k, vec![e(json!({"n": 1}))]).await?;
    }
    call("delete".into(), store.delete(&key())).await?;
    for gone in [&key(), &sub1, &sub2] {
        expect_loaded(store, gone, None).await?;
    }
    expect_len(store, &other, 1).await?;
    expect_len(store, &other_project, 1).await?;
    if has.list_subkeys {
        let left = subkeys(store, &key()).await?;
        ensure(left.is_empty(), || {
            format!("list_subkeys after delete returned {left:?}")
        })?;
    }
    if has.list_sessions {
        let ids = session_ids(store, "proj").await?;
        ensure(!ids.iter().any(|id| id == "sess"), || {
            format!("the deleted session is still listed: {ids:?}")
        })?;
    }
    Ok(())
}

// 11
async fn delete_subpath_removes_only_it(store: &dyn SessionStore, has: Has) -> Outcome {
    let sub1 = key().with_subpath("subagents/agent-1");
    let sub2 = key().with_subpath("subagents/agent-2");
    for k in [&key(), &sub1, &sub2] {
        append(store, k, vec![e(json!({"n": 1}))]).await?;
    }
    call(format!("delete {sub1}"), store.delete(&sub1)).await?;
    expect_loaded(store, &sub1, None).await?;
    expect_len(store, &sub2, 1).await?;
    expect_len(store, &key(), 1).await?;
    if has.list_subkeys {
        let left = subkeys(store, &key()).await?;
        ensure(left == ["subagents/agent-2"], || {
            format!("list_subkeys returned {left:?} instead of [\"subagents/agent-2\"]")
        })?;
    }
    Ok(())
}

// 12
async fn list_subkeys_lists_subpaths(store: &dyn SessionStore, _: Has) -> Outcome {
    append(store, &key(), vec![e(json!({"n": 1}))]).await?;
    append(
        store,
        &key().with_subpath("subagents/agent-1"),
        vec![e(json!({"n": 1}))],
    )
    .await?;
    append(
        store,
        &key().with_subpath("subagents/agent-2"),
        vec![e(json!({"n": 1}))],
    )
    .await?;
    append(
        store,
        &SessionKey::new("proj", "other-sess").with_subpath("subagents/agent-x"),
        vec![e(json!({"n": 1}))],
    )
    .await?;
    let keys = subkeys(store, &key()).await?;
    ensure(keys == ["subagents/agent-1", "subagents/agent-2"], || {
        format!("list_subkeys returned {keys:?} instead of the session's two subagents")
    })
}

// 13
async fn list_subkeys_excludes_main(store: &dyn SessionStore, _: Has) -> Outcome {
    append(store, &key(), vec![e(json!({"n": 1}))]).await?;
    let keys = subkeys(store, &key()).await?;
    ensure(keys.is_empty(), || {
        format!("list_subkeys listed the main transcript: {keys:?}")
    })?;
    let none = subkeys(store, &SessionKey::new("proj", "never-appended")).await?;
    ensure(none.is_empty(), || {
        format!("list_subkeys of an unknown session returned {none:?}")
    })
}

// This crate's addition: `uuid` is an idempotency key per key.
async fn uuid_is_an_idempotency_key(store: &dyn SessionStore, _: Has) -> Outcome {
    let sub = key().with_subpath("subagents/agent-1");
    append(
        store,
        &key(),
        vec![e(json!({"uuid": "u1", "n": 1})), e(json!({"n": 2}))],
    )
    .await?;
    // A retried batch, a duplicate inside a batch, and entries without uuid.
    append(
        store,
        &key(),
        vec![
            e(json!({"uuid": "u1", "n": 1})),
            e(json!({"uuid": "u2", "n": 3})),
            e(json!({"uuid": "u2", "n": 4})),
            e(json!({"n": 2})),
        ],
    )
    .await?;
    // The same uuid under another key is another entry.
    append(store, &sub, vec![e(json!({"uuid": "u1", "n": 1}))]).await?;
    expect_loaded(
        store,
        &key(),
        Some(vec![
            e(json!({"uuid": "u1", "n": 1})),
            e(json!({"n": 2})),
            e(json!({"uuid": "u2", "n": 3})),
            e(json!({"n": 2})),
        ]),
    )
    .await?;
    expect_loaded(store, &sub, Some(vec![e(json!({"uuid": "u1", "n": 1}))])).await
}
