//! [`PostgresStore`]: session stores in PostgreSQL (feature `postgres`).

mod append;
mod options;
mod sql;

pub use self::options::PostgresOptions;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use futures::future::BoxFuture;
use serde_json::Value;
use tokio_postgres::NoTls;

use self::sql::Sql;
use super::entry::{SessionListEntry, SessionSummary, StoreEntry};
use super::open::redact;
use super::session_store::{SessionStore, StoreResult, check_append, check_key};
use super::{SessionKey, StoreError};

/// A [`SessionStore`] in PostgreSQL, shared by any number of processes and
/// machines. Implements every optional method.
///
/// Tables (in [`PostgresOptions::schema`]): `transcripts` (one row per key,
/// with its mtime from the server's clock), `entries` (JSONB, ordered by a
/// `bigserial`, unique per key and `uuid`) and `summaries`. An append is one
/// transaction: it locks the key's `transcripts` row (so appends to one key
/// commit one after another, in order), inserts the batch in one statement
/// (the entries sent as text, made `jsonb` by the server) skipping known
/// uuids, and folds the summary. No TLS: connect over a trusted network or a
/// socket.
///
/// **Persisted** means committed: an append returns once its transaction
/// committed, so with the server's defaults (`synchronous_commit = on`,
/// `fsync = on`) it is in the server's write-ahead log on disk and survives
/// a crash of this process, of the server and of its machine. A server
/// configured with `synchronous_commit = off` may lose the last commits on
/// its own crash.
#[derive(Debug, Clone)]
pub struct PostgresStore {
    pool: Pool,
    sql: Sql,
}

pub(super) fn pg(action: impl Into<String>) -> impl FnOnce(tokio_postgres::Error) -> StoreError {
    let action = action.into();
    move |e| StoreError::backend(action, e)
}

/// The key's subpath as stored: `''` for the main transcript.
pub(super) fn subpath(key: &SessionKey) -> &str {
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

    pub(super) async fn client(&self) -> StoreResult<deadpool_postgres::Object> {
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
}

/// Column `index` of `row`, or [`StoreError::Corrupt`] naming `column`
/// when it does not have the type this store created it with.
pub(super) fn col<'r, T: tokio_postgres::types::FromSql<'r>>(
    row: &'r tokio_postgres::Row,
    index: usize,
    column: &str,
) -> StoreResult<T> {
    row.try_get(index).map_err(|e| StoreError::Corrupt {
        location: format!("column {column}"),
        what: e.to_string(),
    })
}

pub(super) fn summary_from(
    session_id: String,
    mtime: i64,
    data: Value,
) -> StoreResult<SessionSummary> {
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
            let entries = rows.iter().enumerate().map(|(i, row)| {
                let text: String = col(row, 0, "entries.entry")?;
                StoreEntry::from_json(text).map_err(|e| StoreError::Corrupt {
                    location: format!("entry {i} of {key}"),
                    what: format!("not JSON: {e}"),
                })
            });
            entries.collect::<StoreResult<Vec<_>>>().map(Some)
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
