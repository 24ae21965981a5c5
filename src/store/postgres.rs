//! [`PostgresStore`]: session stores in PostgreSQL (feature `postgres`).

use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use futures::future::BoxFuture;
use serde_json::Value;
use tokio_postgres::NoTls;

use super::entry::{SessionListEntry, SessionSummary, StoreEntry, entry_uuid};
use super::open::redact;
use super::session_store::{SessionStore, StoreResult, check_append, check_key};
use super::{SessionKey, StoreError, fold_session_summary};

/// How to connect a [`PostgresStore`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct PostgresOptions {
    /// The schema holding the store's tables, created if missing
    /// (default `claude_agent`); one schema per store isolates stores.
    pub schema: String,
    /// Connections in the pool at most (default 16).
    pub max_connections: usize,
    /// How long to wait for a connection, from the pool or a new one
    /// (default 30 s).
    pub connect_timeout: Duration,
}

impl Default for PostgresOptions {
    fn default() -> Self {
        Self {
            schema: "claude_agent".into(),
            max_connections: 16,
            connect_timeout: Duration::from_secs(30),
        }
    }
}

impl PostgresOptions {
    /// Use `schema` for the store's tables.
    pub fn schema(mut self, schema: impl Into<String>) -> Self {
        self.schema = schema.into();
        self
    }

    /// Pool at most `n` connections (at least 1).
    pub fn max_connections(mut self, n: usize) -> Self {
        self.max_connections = n.max(1);
        self
    }
}

/// A [`SessionStore`] in PostgreSQL, shared by any number of processes and
/// machines. Implements every optional method.
///
/// Tables (in [`PostgresOptions::schema`]): `transcripts` (one row per key,
/// with its mtime from the server's clock), `entries` (JSONB, ordered by a
/// `bigserial`, unique per key and `uuid`) and `summaries`. An append is one
/// transaction: it locks the key's `transcripts` row (so appends to one key
/// commit one after another, in order), inserts the entries skipping known
/// uuids, and folds the summary. No TLS: connect over a trusted network or a
/// socket.
#[derive(Debug, Clone)]
pub struct PostgresStore {
    pool: Pool,
    sql: Sql,
}

/// The store's statements, with the schema filled in.
#[derive(Debug, Clone)]
struct Sql {
    schema: String,
    touch: String,
    insert_entry: String,
    select_summary: String,
    upsert_summary: String,
    select_entries: String,
    transcript_exists: String,
    list_sessions: String,
    list_summaries: String,
    list_subkeys: String,
    delete_entries: String,
    delete_transcripts: String,
    delete_summary: String,
}

impl Sql {
    fn new(schema: &str) -> Self {
        let s = format!("\"{}\"", schema.replace('"', "\"\""));
        let key = "project_key = $1 AND session_id = $2";
        Self {
            schema: s.clone(),
            touch: format!(
                "INSERT INTO {s}.transcripts AS t (project_key, session_id, subpath, mtime) \
                 VALUES ($1, $2, $3, (extract(epoch FROM clock_timestamp()) * 1000)::bigint) \
                 ON CONFLICT (project_key, session_id, subpath) \
                 DO UPDATE SET mtime = GREATEST(EXCLUDED.mtime, t.mtime + 1) RETURNING mtime"
            ),
            insert_entry: format!(
                "INSERT INTO {s}.entries (project_key, session_id, subpath, uuid, entry) \
                 VALUES ($1, $2, $3, $4, $5) \
                 ON CONFLICT (project_key, session_id, subpath, uuid) DO NOTHING RETURNING seq"
            ),
            select_summary: format!("SELECT mtime, data FROM {s}.summaries WHERE {key}"),
            upsert_summary: format!(
                "INSERT INTO {s}.summaries (project_key, session_id, mtime, data) VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (project_key, session_id) DO UPDATE SET mtime = EXCLUDED.mtime, data = EXCLUDED.data"
            ),
            select_entries: format!(
                "SELECT entry FROM {s}.entries WHERE {key} AND subpath = $3 ORDER BY seq"
            ),
            transcript_exists: format!(
                "SELECT 1 FROM {s}.transcripts WHERE {key} AND subpath = $3"
            ),
            list_sessions: format!(
                "SELECT session_id, mtime FROM {s}.transcripts WHERE project_key = $1 AND subpath = ''"
            ),
            list_summaries: format!(
                "SELECT session_id, mtime, data FROM {s}.summaries WHERE project_key = $1"
            ),
            list_subkeys: format!(
                "SELECT subpath FROM {s}.transcripts WHERE {key} AND subpath <> ''"
            ),
            delete_entries: format!(
                "DELETE FROM {s}.entries WHERE {key} AND ($3 = '' OR subpath = $3)"
            ),
            delete_transcripts: format!(
                "DELETE FROM {s}.transcripts WHERE {key} AND ($3 = '' OR subpath = $3)"
            ),
            delete_summary: format!("DELETE FROM {s}.summaries WHERE {key} AND $3 = ''"),
        }
    }

    fn migration(&self) -> String {
        let s = &self.schema;
        format!(
            "CREATE SCHEMA IF NOT EXISTS {s};
             CREATE TABLE IF NOT EXISTS {s}.transcripts (
                 project_key text NOT NULL, session_id text NOT NULL, subpath text NOT NULL,
                 mtime bigint NOT NULL, PRIMARY KEY (project_key, session_id, subpath));
             CREATE TABLE IF NOT EXISTS {s}.entries (
                 seq bigserial PRIMARY KEY, project_key text NOT NULL, session_id text NOT NULL,
                 subpath text NOT NULL, uuid text, entry jsonb NOT NULL);
             CREATE UNIQUE INDEX IF NOT EXISTS entries_by_uuid ON {s}.entries (project_key, session_id, subpath, uuid);
             CREATE INDEX IF NOT EXISTS entries_in_order ON {s}.entries (project_key, session_id, subpath, seq);
             CREATE TABLE IF NOT EXISTS {s}.summaries (
                 project_key text NOT NULL, session_id text NOT NULL, mtime bigint NOT NULL,
                 data jsonb NOT NULL, PRIMARY KEY (project_key, session_id));"
        )
    }
}

fn pg(action: impl Into<String>) -> impl FnOnce(tokio_postgres::Error) -> StoreError {
    let action = action.into();
    move |e| StoreError::backend(action, e)
}

/// The key's subpath as stored: `''` for the main transcript.
fn subpath(key: &SessionKey) -> &str {
    key.subpath.as_deref().unwrap_or("")
}

impl PostgresStore {
    /// Connect to the server at `url` (`postgres://user@host:port/db`) and
    /// create or migrate the store's schema.
    pub async fn connect(url: &str, options: PostgresOptions) -> StoreResult<Self> {
        let config: tokio_postgres::Config =
            url.parse()
                .map_err(|e: tokio_postgres::Error| StoreError::BadUrl {
                    url: redact(url),
                    reason: e.to_string(),
                })?;
        let manager = Manager::from_config(
            config,
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(options.max_connections.max(1))
            .wait_timeout(Some(options.connect_timeout))
            .create_timeout(Some(options.connect_timeout))
            .runtime(Runtime::Tokio1)
            .build()
            .map_err(|e| StoreError::backend("build the PostgreSQL pool", e))?;
        let store = Self {
            pool,
            sql: Sql::new(&options.schema),
        };
        store.migrate().await?;
        Ok(store)
    }

    async fn client(&self) -> StoreResult<deadpool_postgres::Object> {
        self.pool
            .get()
            .await
            .map_err(|e| StoreError::backend("get a PostgreSQL connection", e))
    }

    async fn migrate(&self) -> StoreResult<()> {
        let mut client = self.client().await?;
        let tx = client
            .transaction()
            .await
            .map_err(pg("begin the schema migration"))?;
        // Serialize concurrent migrations: CREATE ... IF NOT EXISTS races.
        tx.execute(
            "SELECT pg_advisory_xact_lock(hashtext($1))",
            &[&self.sql.schema],
        )
        .await
        .map_err(pg("lock the schema migration"))?;
        tx.batch_execute(&self.sql.migration())
            .await
            .map_err(pg(format!("create the schema {}", self.sql.schema)))?;
        tx.commit().await.map_err(pg("commit the schema migration"))
    }

    /// Drop the store's schema and everything in it (for tests and
    /// teardown).
    pub async fn drop_schema(&self) -> StoreResult<()> {
        let client = self.client().await?;
        client
            .batch_execute(&format!(
                "DROP SCHEMA IF EXISTS {} CASCADE",
                self.sql.schema
            ))
            .await
            .map_err(pg(format!("drop the schema {}", self.sql.schema)))
    }

    async fn append_batch(&self, key: &SessionKey, entries: &[StoreEntry]) -> StoreResult<()> {
        let action = format!("append to {key}");
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(pg(action.clone()))?;
        let (pk, sid, sub) = (&key.project_key, &key.session_id, subpath(key));
        let touch = tx
            .prepare_cached(&self.sql.touch)
            .await
            .map_err(pg(action.clone()))?;
        let mtime: i64 = tx
            .query_one(&touch, &[pk, sid, &sub])
            .await
            .map_err(pg(action.clone()))
            .and_then(|row| col(&row, 0, "transcripts.mtime"))?;
        let insert = tx
            .prepare_cached(&self.sql.insert_entry)
            .await
            .map_err(pg(action.clone()))?;
        // Pipelined: sent in order, one round trip for the batch.
        let (tx_ref, insert, sub_ref) = (&tx, &insert, &sub);
        let inserted = futures::future::try_join_all(entries.iter().map(|entry| async move {
            let uuid = entry_uuid(entry);
            tx_ref
                .query_opt(insert, &[pk, sid, sub_ref, &uuid, entry])
                .await
        }))
        .await
        .map_err(pg(action.clone()))?;
        let fresh: Vec<StoreEntry> = entries
            .iter()
            .zip(&inserted)
            .filter(|(_, row)| row.is_some())
            .map(|(entry, _)| entry.clone())
            .collect();
        if fresh.is_empty() {
            // Every entry was known: change nothing, not even the mtime.
            return tx.rollback().await.map_err(pg(action));
        }
        if key.is_main() {
            let select = tx
                .prepare_cached(&self.sql.select_summary)
                .await
                .map_err(pg(action.clone()))?;
            let prev = tx
                .query_opt(&select, &[pk, sid])
                .await
                .map_err(pg(action.clone()))?;
            let prev = prev
                .map(|row| {
                    summary_from(
                        key.session_id.clone(),
                        col(&row, 0, "summaries.mtime")?,
                        col(&row, 1, "summaries.data")?,
                    )
                })
                .transpose()?;
            let mut summary = fold_session_summary(prev.as_ref(), key, &fresh);
            summary.mtime = mtime;
            let data = Value::Object(summary.data);
            let upsert = tx
                .prepare_cached(&self.sql.upsert_summary)
                .await
                .map_err(pg(action.clone()))?;
            tx.execute(&upsert, &[pk, sid, &mtime, &data])
                .await
                .map_err(pg(action.clone()))?;
        }
        tx.commit().await.map_err(pg(action))
    }
}

/// Column `index` of `row`, or [`StoreError::Corrupt`] naming `column`
/// when it does not have the type this store created it with.
fn col<'r, T: tokio_postgres::types::FromSql<'r>>(
    row: &'r tokio_postgres::Row,
    index: usize,
    column: &str,
) -> StoreResult<T> {
    row.try_get(index).map_err(|e| StoreError::Corrupt {
        location: format!("column {column}"),
        what: e.to_string(),
    })
}

fn summary_from(session_id: String, mtime: i64, data: Value) -> StoreResult<SessionSummary> {
    match data {
        Value::Object(data) => Ok(SessionSummary {
            session_id,
            mtime,
            data,
        }),
        _ => Err(StoreError::Corrupt {
            location: format!("summaries row of session {session_id}"),
            what: "data is not a JSON object".into(),
        }),
    }
}

impl SessionStore for PostgresStore {
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
            let action = format!("load {key}");
            let client = self.client().await?;
            let args: [&(dyn tokio_postgres::types::ToSql + Sync); 3] =
                [&key.project_key, &key.session_id, &subpath(key)];
            let rows = client
                .query(&self.sql.select_entries, &args)
                .await
                .map_err(pg(action.clone()))?;
            if rows.is_empty()
                && client
                    .query_opt(&self.sql.transcript_exists, &args)
                    .await
                    .map_err(pg(action))?
                    .is_none()
            {
                return Ok(None);
            }
            let entries = rows.iter().map(|row| col(row, 0, "entries.entry"));
            entries.collect::<StoreResult<Vec<Value>>>().map(Some)
        })
    }

    fn list_sessions<'a>(
        &'a self,
        project_key: &'a str,
    ) -> BoxFuture<'a, StoreResult<Vec<SessionListEntry>>> {
        Box::pin(async move {
            let client = self.client().await?;
            let rows = client
                .query(&self.sql.list_sessions, &[&project_key])
                .await
                .map_err(pg(format!("list the sessions of {project_key}")))?;
            rows.iter()
                .map(|r| {
                    Ok(SessionListEntry {
                        session_id: col(r, 0, "transcripts.session_id")?,
                        mtime: col(r, 1, "transcripts.mtime")?,
                    })
                })
                .collect()
        })
    }

    fn list_session_summaries<'a>(
        &'a self,
        project_key: &'a str,
    ) -> BoxFuture<'a, StoreResult<Vec<SessionSummary>>> {
        Box::pin(async move {
            let client = self.client().await?;
            let rows = client
                .query(&self.sql.list_summaries, &[&project_key])
                .await
                .map_err(pg(format!("list the summaries of {project_key}")))?;
            rows.iter()
                .map(|r| {
                    summary_from(
                        col(r, 0, "summaries.session_id")?,
                        col(r, 1, "summaries.mtime")?,
                        col(r, 2, "summaries.data")?,
                    )
                })
                .collect()
        })
    }

    fn delete<'a>(&'a self, key: &'a SessionKey) -> BoxFuture<'a, StoreResult<()>> {
        Box::pin(async move {
            check_key(key)?;
            let action = format!("delete {key}");
            let mut client = self.client().await?;
            let tx = client.transaction().await.map_err(pg(action.clone()))?;
            let args: [&(dyn tokio_postgres::types::ToSql + Sync); 3] =
                [&key.project_key, &key.session_id, &subpath(key)];
            for sql in [
                &self.sql.delete_transcripts,
                &self.sql.delete_entries,
                &self.sql.delete_summary,
            ] {
                tx.execute(sql.as_str(), &args)
                    .await
                    .map_err(pg(action.clone()))?;
            }
            tx.commit().await.map_err(pg(action))
        })
    }

    fn list_subkeys<'a>(
        &'a self,
        project_key: &'a str,
        session_id: &'a str,
    ) -> BoxFuture<'a, StoreResult<Vec<String>>> {
        Box::pin(async move {
            let client = self.client().await?;
            let rows = client
                .query(&self.sql.list_subkeys, &[&project_key, &session_id])
                .await
                .map_err(pg(format!(
                    "list the subkeys of {project_key}/{session_id}"
                )))?;
            rows.iter()
                .map(|r| col(r, 0, "transcripts.subpath"))
                .collect()
        })
    }
}
