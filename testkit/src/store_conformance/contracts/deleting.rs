//! The contracts of `delete` and `list_subkeys`.

use claude_agent::store::{SessionKey, SessionStore};
use serde_json::json;

use super::super::Has;
use super::*;

// 9
pub(super) async fn delete_main_then_load_is_none(store: &dyn SessionStore, _: Has) -> Outcome {
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
pub(super) async fn delete_main_cascades_to_subkeys(store: &dyn SessionStore, has: Has) -> Outcome {
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
pub(super) async fn delete_subpath_removes_only_it(store: &dyn SessionStore, has: Has) -> Outcome {
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
pub(super) async fn list_subkeys_lists_subpaths(store: &dyn SessionStore, _: Has) -> Outcome {
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
pub(super) async fn list_subkeys_excludes_main(store: &dyn SessionStore, _: Has) -> Outcome {
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
