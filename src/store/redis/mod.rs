//! [`RedisStore`]: session stores in Redis (feature `redis`).

mod append;
mod lock;
mod options;
mod scripts;

pub use self::options::RedisOptions;

use std::time::Duration;

use ::redis::aio::{ConnectionManager, ConnectionManagerConfig};
use ::redis::{AsyncCommands, RedisError, Script};
use futures::future::BoxFuture;
use serde_json::{Map, Value};

use self::scripts::{APPEND_LUA, DELETE_LUA};
use super::entry::{SessionListEntry, SessionSummary, StoreEntry};
use super::open::redact;
use super::session_store::{SessionStore, StoreResult, check_append, check_key};
use super::{SessionKey, StoreError};

/// How many times an append to a main key retries when another writer
/// changed the session between its read and its write.
pub(super) const MAX_ATTEMPTS: u32 = 32;

/// How long a session's write lock outlives a writer that died holding it.
pub(super) const LOCK_LEASE: Duration = Duration::from_secs(10);

/// A [`SessionStore`] in Redis, shared by any number of processes and
/// machines. Implements every optional method. Not for Redis Cluster (one
/// operation touches several keys).
///
/// Per transcript a list of entries and a set of their uuids; per session
/// a set of its subpaths; per project a sorted set of sessions scored by
/// mtime (the server's clock, kept strictly increasing per session), a hash
/// of summaries and a hash of per-session versions. An append is one Lua
/// script: it checks the session's version (a main-key append folded the
/// summary from what it read, and retries if another writer got in
/// between), skips known uuids, pushes the rest, and writes the summary and
/// the mtime. The connection manager reconnects after a failure.
///
/// **Persisted** means acknowledged: an append returns once the server
/// ran its script and replied, so it survives a crash of this process.
/// Whether it survives a crash of the Redis server is the server's own
/// persistence settings: with `appendonly yes` and `appendfsync always`
/// nothing acknowledged is lost, with `appendfsync everysec` (Redis's AOF
/// default) up to about a second, with RDB snapshots only (`appendonly no`,
/// the default) everything since the last snapshot. Replicas do not change
/// this unless the writer waits for them (`WAIT`), which this store does
/// not.
#[derive(Clone)]
pub struct RedisStore {
    conn: ConnectionManager,
    prefix: String,
    timeout: Duration,
    append_script: Script,
    delete_script: Script,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

pub(super) fn backend(action: impl Into<String>) -> impl FnOnce(RedisError) -> StoreError {
    let action = action.into();
    move |e| StoreError::backend(action, e)
}

fn json(parts: &[&str]) -> String {
    // JSON arrays keep the parts apart whatever characters they contain.
    Value::from(parts.iter().map(|p| Value::from(*p)).collect::<Vec<_>>()).to_string()
}

impl RedisStore {
    /// Connect to the server at `url` (`redis://host:port/db`).
    pub async fn connect(url: &str, options: RedisOptions) -> StoreResult<Self> {
        let client = ::redis::Client::open(url).map_err(|e| StoreError::BadUrl {
            url: redact(url),
            reason: e.to_string(),
        })?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(options.timeout))
            .set_response_timeout(Some(options.timeout))
            .set_number_of_retries(3);
        let conn = ConnectionManager::new_with_config(client, config)
            .await
            .map_err(backend(format!("connect to Redis at {}", redact(url))))?;
        Ok(Self {
            conn,
            prefix: options.prefix,
            timeout: options.timeout,
            append_script: Script::new(APPEND_LUA),
            delete_script: Script::new(DELETE_LUA),
        })
    }

    fn transcript_keys(&self, pk: &str, sid: &str, sub: &str) -> (String, String) {
        let id = json(&[pk, sid, sub]);
        (
            format!("{}:entries:{id}", self.prefix),
            format!("{}:uuids:{id}", self.prefix),
        )
    }

    fn project_key(&self, kind: &str, pk: &str) -> String {
        format!("{}:{kind}:{}", self.prefix, json(&[pk]))
    }

    fn lock_key(&self, pk: &str, sid: &str) -> String {
        format!("{}:lock:{}", self.prefix, json(&[pk, sid]))
    }

    fn subkeys_key(&self, pk: &str, sid: &str) -> String {
        format!("{}:subkeys:{}", self.prefix, json(&[pk, sid]))
    }

    /// Delete every key under this store's prefix (for tests and
    /// teardown).
    pub async fn clear(&self) -> StoreResult<()> {
        let mut conn = self.conn.clone();
        let pattern = format!("{}:*", glob_escape(&self.prefix));
        let keys: Vec<String> = {
            let mut iter = conn
                .scan_match::<_, String>(&pattern)
                .await
                .map_err(backend("list the store's keys"))?;
            let mut keys = Vec::new();
            while let Some(key) = futures::StreamExt::next(&mut iter).await {
                keys.push(key.map_err(backend("list the store's keys"))?);
            }
            keys
        };
        for chunk in keys.chunks(500) {
            conn.del::<_, ()>(chunk)
                .await
                .map_err(backend("delete the store's keys"))?;
        }
        Ok(())
    }
}

/// A summary hash value (the fold's data as JSON) with its mtime.
pub(super) fn parse_summary(sid: &str, text: &str, mtime: i64) -> StoreResult<SessionSummary> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(data)) => Ok(SessionSummary {
            session_id: sid.to_owned(),
            mtime,
            data,
        }),
        _ => Err(StoreError::Corrupt {
            location: format!("the summary of session {sid}"),
            what: "not a JSON object".into(),
        }),
    }
}

fn glob_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

impl SessionStore for RedisStore {
    fn append<'a>(
        &'a self,
        key: &'a SessionKey,
        entries: &'a [StoreEntry],
    ) -> BoxFuture<'a, StoreResult<()>> {
        Box::pin(async move {
            check_append(key, entries)?;
            if entries.is_empty() {
                return Ok(());
            }
            self.append_batch(key, entries).await
        })
    }

    fn load<'a>(
        &'a self,
        key: &'a SessionKey,
    ) -> BoxFuture<'a, StoreResult<Option<Vec<StoreEntry>>>> {
        Box::pin(async move {
            check_key(key)?;
            let (entries_key, _) = self.transcript_keys(
                &key.project_key,
                &key.session_id,
                key.subpath.as_deref().unwrap_or(""),
            );
            let lines: Vec<String> = self
                .conn
                .clone()
                .lrange(&entries_key, 0, -1)
                .await
                .map_err(backend(format!("load {key}")))?;
            if lines.is_empty() {
                // Appends never leave an empty list: this key was never written.
                return Ok(None);
            }
            let entries = lines
                .into_iter()
                .enumerate()
                .map(|(i, line)| {
                    StoreEntry::from_json(line).map_err(|e| StoreError::Corrupt {
                        location: format!("{entries_key} item {i}"),
                        what: format!("not a JSON entry: {e}"),
                    })
                })
                .collect::<StoreResult<Vec<_>>>()?;
            Ok(Some(entries))
        })
    }

    fn list_sessions<'a>(
        &'a self,
        project_key: &'a str,
    ) -> BoxFuture<'a, StoreResult<Vec<SessionListEntry>>> {
        Box::pin(async move {
            let scored: Vec<(String, f64)> = self
                .conn
                .clone()
                .zrange_withscores(self.project_key("sessions", project_key), 0, -1)
                .await
                .map_err(backend(format!("list the sessions of {project_key}")))?;
            // Scores are epoch milliseconds, exact in an f64.
            Ok(scored
                .into_iter()
                .map(|(session_id, mtime)| SessionListEntry {
                    session_id,
                    mtime: mtime as i64,
                })
                .collect())
        })
    }

    fn list_session_summaries<'a>(
        &'a self,
        project_key: &'a str,
    ) -> BoxFuture<'a, StoreResult<Vec<SessionSummary>>> {
        Box::pin(async move {
            let (scored, summaries): (
                Vec<(String, f64)>,
                std::collections::HashMap<String, String>,
            ) = ::redis::pipe()
                .atomic()
                .zrange_withscores(self.project_key("sessions", project_key), 0, -1)
                .hgetall(self.project_key("summaries", project_key))
                .query_async(&mut self.conn.clone())
                .await
                .map_err(backend(format!("list the summaries of {project_key}")))?;
            let mtimes: Map<String, Value> = scored
                .into_iter()
                .map(|(sid, m)| (sid, Value::from(m as i64)))
                .collect();
            summaries
                .iter()
                .map(|(sid, text)| {
                    parse_summary(
                        sid,
                        text,
                        mtimes.get(sid).and_then(Value::as_i64).unwrap_or(0),
                    )
                })
                .collect()
        })
    }

    fn delete<'a>(&'a self, key: &'a SessionKey) -> BoxFuture<'a, StoreResult<()>> {
        Box::pin(async move {
            check_key(key)?;
            let action = format!("delete {key}");
            let (pk, sid) = (key.project_key.as_str(), key.session_id.as_str());
            let mut conn = self.conn.clone();
            let subkeys_key = self.subkeys_key(pk, sid);
            if let Some(sub) = &key.subpath {
                let (entries_key, uuids_key) = self.transcript_keys(pk, sid, sub);
                return ::redis::pipe()
                    .atomic()
                    .del(&[entries_key, uuids_key])
                    .srem(&subkeys_key, sub)
                    .query_async::<()>(&mut conn)
                    .await
                    .map_err(backend(action));
            }
            for _ in 0..MAX_ATTEMPTS {
                let subs: Vec<String> = conn
                    .smembers(&subkeys_key)
                    .await
                    .map_err(backend(action.clone()))?;
                let mut call = self.delete_script.prepare_invoke();
                call.key(self.project_key("sessions", pk))
                    .key(self.project_key("summaries", pk))
                    .key(self.project_key("versions", pk))
                    .key(&subkeys_key);
                for sub in std::iter::once("").chain(subs.iter().map(String::as_str)) {
                    let (entries_key, uuids_key) = self.transcript_keys(pk, sid, sub);
                    call.key(entries_key).key(uuids_key);
                }
                call.arg(sid).arg(subs.len());
                let done: i64 = call
                    .invoke_async(&mut conn)
                    .await
                    .map_err(backend(action.clone()))?;
                if done >= 0 {
                    return Ok(());
                }
            }
            Err(StoreError::Contended {
                key: key.to_string(),
                attempts: MAX_ATTEMPTS,
            })
        })
    }

    fn list_subkeys<'a>(
        &'a self,
        project_key: &'a str,
        session_id: &'a str,
    ) -> BoxFuture<'a, StoreResult<Vec<String>>> {
        Box::pin(async move {
            self.conn
                .clone()
                .smembers(self.subkeys_key(project_key, session_id))
                .await
                .map_err(backend(format!(
                    "list the subkeys of {project_key}/{session_id}"
                )))
        })
    }
}
