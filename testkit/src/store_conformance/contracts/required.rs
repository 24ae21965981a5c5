//! The contracts of the required methods, `append` and `load`.

use claude_agent::store::{SessionKey, SessionStore, StoreEntry, StoreError};
use serde_json::json;

use super::super::Has;
use super::*;

// 1
pub(super) async fn append_then_load_round_trips(store: &dyn SessionStore, _: Has) -> Outcome {
    let entries = vec![
        e(json!({"uuid": "b", "n": 1})),
        e(json!({"uuid": "a", "n": 2})),
    ];
    append(store, &key(), entries.clone()).await?;
    expect_loaded(store, &key(), Some(entries)).await
}

// 2
pub(super) async fn load_of_unknown_key_is_none(store: &dyn SessionStore, _: Has) -> Outcome {
    expect_loaded(store, &SessionKey::new("proj", "nope"), None).await?;
    append(store, &key(), vec![e(json!({"uuid": "x", "n": 1}))]).await?;
    expect_loaded(store, &key().with_subpath("nope"), None).await
}

// 3
pub(super) async fn appends_keep_call_order(store: &dyn SessionStore, _: Has) -> Outcome {
    let all =
        [("z", 1), ("a", 2), ("m", 3), ("b", 4)].map(|(uuid, n)| e(json!({"uuid": uuid, "n": n})));
    append(store, &key(), all[..1].to_vec()).await?;
    append(store, &key(), all[1..3].to_vec()).await?;
    append(store, &key(), all[3..].to_vec()).await?;
    expect_loaded(store, &key(), Some(all.to_vec())).await
}

// 4
pub(super) async fn empty_append_is_a_no_op(store: &dyn SessionStore, _: Has) -> Outcome {
    append(store, &key(), vec![e(json!({"uuid": "a", "n": 1}))]).await?;
    append(store, &key(), vec![]).await?;
    expect_loaded(store, &key(), Some(vec![e(json!({"uuid": "a", "n": 1}))])).await
}

// 5
pub(super) async fn subpaths_are_stored_apart_from_main(
    store: &dyn SessionStore,
    _: Has,
) -> Outcome {
    let sub = key().with_subpath("subagents/agent-1");
    append(store, &key(), vec![e(json!({"uuid": "m", "n": 1}))]).await?;
    append(store, &sub, vec![e(json!({"uuid": "s", "n": 1}))]).await?;
    expect_loaded(store, &key(), Some(vec![e(json!({"uuid": "m", "n": 1}))])).await?;
    expect_loaded(store, &sub, Some(vec![e(json!({"uuid": "s", "n": 1}))])).await
}

// 6
pub(super) async fn project_keys_are_isolated(store: &dyn SessionStore, has: Has) -> Outcome {
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

// This crate's addition: `uuid` is an idempotency key per key.
pub(super) async fn uuid_is_an_idempotency_key(store: &dyn SessionStore, _: Has) -> Outcome {
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

// This crate's addition: only JSON objects are entries; a batch holding
// anything else is rejected whole, naming the culprit's index.
pub(super) async fn a_batch_with_a_non_object_is_rejected(
    store: &dyn SessionStore,
    _: Has,
) -> Outcome {
    let mut batch = vec![e(json!({"uuid": "ok", "n": 1}))];
    for text in ["[1,2]", "\"text\"", "7", "null"] {
        let not_object = StoreEntry::from_json(text).map_err(|e| Failure {
            problem: format!("the test entry {text} did not parse: {e}"),
            source: None,
        })?;
        batch.push(not_object);
        let index = batch.len() - 1;
        match store.append(&key(), &batch).await {
            Err(StoreError::NotAnObject { index: i, .. }) if i == index => {}
            other => {
                return ensure(false, || {
                    format!(
                        "appending a batch whose entry {index} is {text} returned {} instead of NotAnObject at {index}",
                        match other {
                            Ok(()) => "Ok".to_owned(),
                            Err(e) => e.to_string(),
                        }
                    )
                });
            }
        }
        batch.pop();
    }
    expect_loaded(store, &key(), None).await
}
