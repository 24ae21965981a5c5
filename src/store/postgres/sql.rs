//! The PostgreSQL store's SQL: its tables, and every statement with the
//! store's schema filled in (quoted, so any schema name is safe).

/// The store's statements, with the schema filled in.
#[derive(Debug, Clone)]
pub(super) struct Sql {
    pub(super) schema: String,
    pub(super) touch: String,
    pub(super) insert_entries: String,
    pub(super) select_summary: String,
    pub(super) upsert_summary: String,
    pub(super) select_entries: String,
    pub(super) transcript_exists: String,
    pub(super) list_sessions: String,
    pub(super) list_summaries: String,
    pub(super) list_subkeys: String,
    pub(super) delete_entries: String,
    pub(super) delete_transcripts: String,
    pub(super) delete_summary: String,
}

impl Sql {
    pub(super) fn new(schema: &str) -> Self {
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
            // One statement per batch: the entries travel as text and
            // become jsonb on the server; rows are inserted in batch order
            // (so `seq` keeps it), a known uuid (stored, or earlier in the
            // batch) is skipped, and the uuids inserted come back.
            insert_entries: format!(
                "INSERT INTO {s}.entries (project_key, session_id, subpath, uuid, entry) \
                 SELECT $1, $2, $3, b.uuid, b.entry::jsonb \
                 FROM unnest($4::text[], $5::text[]) WITH ORDINALITY AS b(uuid, entry, ord) \
                 ORDER BY b.ord \
                 ON CONFLICT (project_key, session_id, subpath, uuid) DO NOTHING RETURNING uuid"
            ),
            select_summary: format!("SELECT mtime, data FROM {s}.summaries WHERE {key}"),
            upsert_summary: format!(
                "INSERT INTO {s}.summaries (project_key, session_id, mtime, data) VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (project_key, session_id) DO UPDATE SET mtime = EXCLUDED.mtime, data = EXCLUDED.data"
            ),
            select_entries: format!(
                "SELECT entry::text FROM {s}.entries WHERE {key} AND subpath = $3 ORDER BY seq"
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

    pub(super) fn migration(&self) -> String {
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
