//! The contracts, one function each, numbered as in the official SDKs'
//! suites (the uuid and non-object contracts are this crate's additions).

use std::future::Future;

use claude_agent::store::{SessionKey, SessionStore, StoreEntry, StoreError};
use futures::future::BoxFuture;
use serde_json::{Value, json};

use super::{Has, Optional};

mod deleting;
mod listing;
mod required;

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
    ($module:ident :: $name:ident, [$($need:ident),*]) => {
        Contract {
            name: stringify!($name),
            needs: &[$(Optional::$need),*],
            check: |store, has| Box::pin($module::$name(store, has)),
        }
    };
}

/// Every contract, in the official suite's order.
pub(super) const ALL: [Contract; 16] = [
    contract!(required::append_then_load_round_trips, []),
    contract!(required::load_of_unknown_key_is_none, []),
    contract!(required::appends_keep_call_order, []),
    contract!(required::empty_append_is_a_no_op, []),
    contract!(required::subpaths_are_stored_apart_from_main, []),
    contract!(required::project_keys_are_isolated, []),
    contract!(
        listing::list_sessions_lists_the_projects_sessions,
        [ListSessions]
    ),
    contract!(listing::list_sessions_excludes_subpaths, [ListSessions]),
    contract!(
        listing::summaries_persist_the_fold_verbatim,
        [ListSessionSummaries]
    ),
    contract!(deleting::delete_main_then_load_is_none, [Delete]),
    contract!(deleting::delete_main_cascades_to_subkeys, [Delete]),
    contract!(deleting::delete_subpath_removes_only_it, [Delete]),
    contract!(deleting::list_subkeys_lists_subpaths, [ListSubkeys]),
    contract!(deleting::list_subkeys_excludes_main, [ListSubkeys]),
    contract!(required::uuid_is_an_idempotency_key, []),
    contract!(required::a_batch_with_a_non_object_is_rejected, []),
];

pub(super) fn key() -> SessionKey {
    SessionKey::new("proj", "sess")
}

/// A test entry: `{"type": "x", ...fields}`.
pub(super) fn e(fields: Value) -> StoreEntry {
    let mut entry = json!({"type": "x"});
    if let (Some(entry), Value::Object(fields)) = (entry.as_object_mut(), fields) {
        entry.extend(fields);
    }
    StoreEntry::from(entry)
}

pub(super) async fn call<T>(
    what: String,
    op: impl Future<Output = Result<T, StoreError>>,
) -> Result<T, Failure> {
    op.await.map_err(|e| Failure {
        problem: format!("{what} failed"),
        source: Some(e),
    })
}

pub(super) fn ensure(ok: bool, problem: impl FnOnce() -> String) -> Outcome {
    if ok {
        Ok(())
    } else {
        Err(Failure {
            problem: problem(),
            source: None,
        })
    }
}

pub(super) async fn append(
    store: &dyn SessionStore,
    key: &SessionKey,
    entries: Vec<StoreEntry>,
) -> Outcome {
    call(format!("append to {key}"), store.append(key, &entries)).await
}

pub(super) async fn load(
    store: &dyn SessionStore,
    key: &SessionKey,
) -> Result<Option<Vec<StoreEntry>>, Failure> {
    call(format!("load {key}"), store.load(key)).await
}

pub(super) async fn expect_loaded(
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

pub(super) async fn expect_len(store: &dyn SessionStore, key: &SessionKey, len: usize) -> Outcome {
    let loaded = load(store, key).await?;
    ensure(loaded.as_ref().map(Vec::len) == Some(len), || {
        format!(
            "load {key} returned {} instead of {len} entries",
            show(&loaded)
        )
    })
}

pub(super) fn show(entries: &Option<Vec<StoreEntry>>) -> String {
    match entries {
        None => "None".into(),
        Some(entries) => {
            let texts: Vec<&str> = entries.iter().map(StoreEntry::as_str).collect();
            format!("[{}]", texts.join(","))
        }
    }
}

pub(super) async fn session_ids(
    store: &dyn SessionStore,
    project: &str,
) -> Result<Vec<String>, Failure> {
    let listed = call(
        format!("list_sessions({project})"),
        store.list_sessions(project),
    )
    .await?;
    let mut ids: Vec<String> = listed.into_iter().map(|s| s.session_id).collect();
    ids.sort();
    Ok(ids)
}

pub(super) async fn subkeys(
    store: &dyn SessionStore,
    key: &SessionKey,
) -> Result<Vec<String>, Failure> {
    let mut keys = call(
        format!("list_subkeys({key})"),
        store.list_subkeys(&key.project_key, &key.session_id),
    )
    .await?;
    keys.sort();
    Ok(keys)
}
