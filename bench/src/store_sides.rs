//! The sides of the store benchmark: each store as it is, and next to it
//! the baseline the same backend gives without the store's guarantees.
//!
//! | side | what one append is |
//! |---|---|
//! | `file-sync` | [`FileStore`] as it is: one `O_APPEND` write under the session lock, then `fdatasync` |
//! | `file-nosync` | the same with [`FileStore::sync`]`(false)` |
//! | `pg-store` | [`PostgresStore`] as it is: one transaction (touch the key's row, the multi-row `INSERT ... SELECT unnest(..) ON CONFLICT DO NOTHING`, fold the summary) |
//! | `pg-insert` | that `INSERT` alone, in its own transaction |
//! | `pg-copy` | the same rows by `COPY ... FROM STDIN` (text format), in its own transaction |
//! | `redis-store` | [`RedisStore`] as it is: lock, read version + summary + known uuids, fold, the append script, unlock |
//! | `redis-rpush` | one `RPUSH` per entry, in one plain pipeline |
//!
//! Each side has its own place: a folder, a PostgreSQL schema (`pg-insert`
//! and `pg-copy` get tables made by the store's own migration), a Redis key
//! prefix; [`Side::teardown`] removes it.

use std::borrow::Cow;
use std::path::Path;

use bytes::Bytes;
use claude_agent::store::{
    FileStore, PostgresOptions, PostgresStore, RedisOptions, RedisStore, SessionKey, SessionStore,
    StoreEntry,
};
use futures::SinkExt;

use crate::{BenchError, Result};

/// Every side, in the order they run within a rep (rotated per rep).
pub const ALL: [&str; 7] = [
    "file-sync",
    "file-nosync",
    "pg-store",
    "pg-insert",
    "pg-copy",
    "redis-store",
    "redis-rpush",
];

/// Where the sides keep their data.
#[derive(Debug)]
pub struct Places<'a> {
    /// Parent of the file stores' folders.
    pub dir: &'a Path,
    /// PostgreSQL server URL.
    pub postgres: &'a str,
    /// Redis server URL.
    pub redis: &'a str,
    /// Unique in this run's schema names and key prefixes.
    pub tag: &'a str,
}

/// One side, ready to append.
pub struct Side {
    /// Its name (one of [`ALL`]).
    pub name: &'static str,
    imp: Imp,
}

impl std::fmt::Debug for Side {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Side")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

enum Imp {
    /// A file store as it is.
    File(FileStore),
    /// The PostgreSQL store as it is.
    PgStore(PostgresStore),
    /// The Redis store as it is.
    RedisStore(RedisStore),
    /// A bare PostgreSQL connection writing into `tables`' schema.
    Pg {
        client: tokio_postgres::Client,
        /// The store whose migration made the tables (dropped at the end).
        tables: PostgresStore,
        /// `Some` for `pg-insert`: the store's own statement, prepared.
        insert: Option<tokio_postgres::Statement>,
        copy_sql: String,
        /// The connection's task (ends when `client` is dropped).
        conn: tokio::task::JoinHandle<()>,
    },
    /// A plain Redis connection.
    Rpush {
        conn: redis::aio::MultiplexedConnection,
        prefix: String,
        keys: Vec<String>,
    },
}

fn fail(side: &str, what: impl std::fmt::Display) -> BenchError {
    BenchError::Session(format!("{side}: {what}"))
}

/// The store's own entry statement (src/store/postgres/sql.rs), for
/// `pg-insert`: the same statement without the rest of the transaction.
fn insert_sql(schema: &str) -> String {
    format!(
        "INSERT INTO \"{schema}\".entries (project_key, session_id, subpath, uuid, entry) \
         SELECT $1, $2, $3, b.uuid, b.entry::jsonb \
         FROM unnest($4::text[], $5::text[]) WITH ORDINALITY AS b(uuid, entry, ord) \
         ORDER BY b.ord \
         ON CONFLICT (project_key, session_id, subpath, uuid) DO NOTHING RETURNING uuid"
    )
}

impl Side {
    /// Sets up side `name` in its own place.
    pub async fn open(name: &'static str, places: &Places<'_>) -> Result<Self> {
        let schema = format!(
            "claude_agent_bench_{}_{}",
            places.tag,
            name.replace('-', "_")
        );
        let prefix = format!("claude-agent-bench-{}-{name}", places.tag);
        let imp = match name {
            "file-sync" | "file-nosync" => {
                Imp::File(FileStore::new(places.dir.join(name)).sync(name == "file-sync"))
            }
            "pg-store" => {
                let store = PostgresStore::connect(
                    places.postgres,
                    PostgresOptions::default().schema(schema),
                )
                .await
                .map_err(|e| fail(name, e))?;
                Imp::PgStore(store)
            }
            "pg-insert" | "pg-copy" => {
                let tables = PostgresStore::connect(
                    places.postgres,
                    PostgresOptions::default().schema(schema.clone()),
                )
                .await
                .map_err(|e| fail(name, e))?;
                let (client, connection) =
                    tokio_postgres::connect(places.postgres, tokio_postgres::NoTls)
                        .await
                        .map_err(|e| fail(name, e))?;
                let conn = tokio::spawn(async move {
                    if let Err(e) = connection.await {
                        eprintln!("PostgreSQL connection: {e}");
                    }
                });
                let insert = match name {
                    "pg-insert" => Some(
                        client
                            .prepare(&insert_sql(&schema))
                            .await
                            .map_err(|e| fail(name, e))?,
                    ),
                    _ => None,
                };
                let copy_sql = format!(
                    "COPY \"{schema}\".entries (project_key, session_id, subpath, uuid, entry) \
                     FROM STDIN"
                );
                Imp::Pg {
                    client,
                    tables,
                    insert,
                    copy_sql,
                    conn,
                }
            }
            "redis-store" => {
                let store =
                    RedisStore::connect(places.redis, RedisOptions::default().prefix(prefix))
                        .await
                        .map_err(|e| fail(name, e))?;
                Imp::RedisStore(store)
            }
            "redis-rpush" => {
                let client = redis::Client::open(places.redis).map_err(|e| fail(name, e))?;
                let conn = client
                    .get_multiplexed_async_connection()
                    .await
                    .map_err(|e| fail(name, e))?;
                Imp::Rpush {
                    conn,
                    prefix,
                    keys: Vec::new(),
                }
            }
            other => return Err(fail(other, "no such side")),
        };
        Ok(Self { name, imp })
    }

    /// Appends `entries` to `key`, returning once the side's backend has
    /// them (committed, fsynced or answered, per side).
    pub async fn append(&mut self, key: &SessionKey, entries: &[StoreEntry]) -> Result<()> {
        let name = self.name;
        match &mut self.imp {
            Imp::File(store) => store.append(key, entries).await.map_err(|e| fail(name, e)),
            Imp::PgStore(store) => store.append(key, entries).await.map_err(|e| fail(name, e)),
            Imp::RedisStore(store) => store.append(key, entries).await.map_err(|e| fail(name, e)),
            Imp::Pg {
                client,
                insert,
                copy_sql,
                ..
            } => {
                let tx = client.transaction().await.map_err(|e| fail(name, e))?;
                let (pk, sid, sub) = (&key.project_key, &key.session_id, "");
                match insert {
                    Some(insert) => {
                        let uuids: Vec<Option<Cow<'_, str>>> =
                            entries.iter().map(StoreEntry::uuid).collect();
                        let uuids: Vec<Option<&str>> = uuids.iter().map(Option::as_deref).collect();
                        let texts: Vec<&str> = entries.iter().map(StoreEntry::as_str).collect();
                        tx.query(&*insert, &[pk, sid, &sub, &uuids, &texts])
                            .await
                            .map_err(|e| fail(name, e))?;
                    }
                    None => {
                        let rows = copy_rows(pk, sid, entries);
                        let sink = tx
                            .copy_in::<_, Bytes>(copy_sql.as_str())
                            .await
                            .map_err(|e| fail(name, e))?;
                        futures::pin_mut!(sink);
                        sink.send(Bytes::from(rows))
                            .await
                            .map_err(|e| fail(name, e))?;
                        sink.finish().await.map_err(|e| fail(name, e))?;
                    }
                }
                tx.commit().await.map_err(|e| fail(name, e))
            }
            Imp::Rpush { conn, prefix, keys } => {
                let list = format!("{prefix}:entries:{}", key.session_id);
                if !keys.contains(&list) {
                    keys.push(list.clone());
                }
                let mut pipe = redis::pipe();
                for entry in entries {
                    pipe.rpush(&list, entry.as_str()).ignore();
                }
                pipe.query_async::<()>(conn)
                    .await
                    .map_err(|e| fail(name, e))
            }
        }
    }

    /// Removes everything the side wrote (its folder goes with the
    /// benchmark's temporary directory).
    pub async fn teardown(self) -> Result<()> {
        let name = self.name;
        match self.imp {
            Imp::File(_) => Ok(()),
            Imp::PgStore(store) => store.drop_schema().await.map_err(|e| fail(name, e)),
            Imp::RedisStore(store) => store.clear().await.map_err(|e| fail(name, e)),
            Imp::Pg {
                client,
                tables,
                conn,
                ..
            } => {
                drop(client);
                let _ = conn.await;
                tables.drop_schema().await.map_err(|e| fail(name, e))
            }
            Imp::Rpush { mut conn, keys, .. } => {
                if keys.is_empty() {
                    return Ok(());
                }
                redis::cmd("DEL")
                    .arg(&keys)
                    .query_async::<()>(&mut conn)
                    .await
                    .map_err(|e| fail(name, e))
            }
        }
    }
}

/// `COPY ... FROM STDIN` text-format rows: tab-separated columns, `\N` for
/// a missing uuid, backslash, tab and line breaks escaped.
fn copy_rows(pk: &str, sid: &str, entries: &[StoreEntry]) -> Vec<u8> {
    let size: usize = entries.iter().map(|e| e.as_str().len() + 128).sum();
    let mut out = Vec::with_capacity(size);
    for entry in entries {
        escape(&mut out, pk);
        out.push(b'\t');
        escape(&mut out, sid);
        out.extend_from_slice(b"\t\t");
        match entry.uuid() {
            Some(uuid) => escape(&mut out, &uuid),
            None => out.extend_from_slice(b"\\N"),
        }
        out.push(b'\t');
        escape(&mut out, entry.as_str());
        out.push(b'\n');
    }
    out
}

fn escape(out: &mut Vec<u8>, text: &str) {
    for &b in text.as_bytes() {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            _ => out.push(b),
        }
    }
}
