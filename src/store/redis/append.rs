//! A Redis store's append: under the session's lock for a main key, read
//! the version, the summary and which uuids are stored, fold, then run the
//! append script, which checks the version again.

use ::redis::aio::ConnectionManager;
use serde_json::Value;

use super::lock::RedisLock;
use super::{LOCK_LEASE, MAX_ATTEMPTS, RedisStore, backend, parse_summary};
use crate::store::entry::{StoreEntry, entry_uuid, fresh_entries};
use crate::store::session_store::StoreResult;
use crate::store::{SessionKey, StoreError, fold_session_summary};

impl RedisStore {
    pub(super) async fn append_batch(
        &self,
        key: &SessionKey,
        entries: &[StoreEntry],
    ) -> StoreResult<()> {
        let (pk, sid) = (key.project_key.as_str(), key.session_id.as_str());
        let mut encoded = Vec::with_capacity(entries.len());
        for entry in entries {
            let text = serde_json::to_string(entry)
                .map_err(|e| StoreError::backend(format!("encode an entry for {key}"), e))?;
            encoded.push((entry_uuid(entry).unwrap_or(""), text));
        }
        let mut conn = self.conn.clone();
        // Writers of one session take turns for the read-fold-write of the
        // summary; the version check below still catches a writer whose
        // lease ran out.
        let lock = match key.is_main() {
            true => Some(
                RedisLock::acquire(&self.conn, self.lock_key(pk, sid), LOCK_LEASE, self.timeout)
                    .await?,
            ),
            false => None,
        };
        let outcome = self
            .append_attempts(key, entries, &encoded, &mut conn)
            .await;
        if let Some(lock) = lock {
            lock.release().await?;
        }
        outcome
    }

    async fn append_attempts(
        &self,
        key: &SessionKey,
        entries: &[StoreEntry],
        encoded: &[(&str, String)],
        conn: &mut ConnectionManager,
    ) -> StoreResult<()> {
        let action = format!("append to {key}");
        let (pk, sid) = (key.project_key.as_str(), key.session_id.as_str());
        let sub = key.subpath.as_deref().unwrap_or("");
        let (entries_key, uuids_key) = self.transcript_keys(pk, sid, sub);
        let (sessions, summaries, versions) = (
            self.project_key("sessions", pk),
            self.project_key("summaries", pk),
            self.project_key("versions", pk),
        );
        for _ in 0..MAX_ATTEMPTS {
            let (version, data) = if key.is_main() {
                let uuids: Vec<&str> = entries.iter().filter_map(entry_uuid).collect();
                // The trailing "" keeps SMISMEMBER valid for a batch without
                // uuids; no stored uuid is empty.
                let (version, summary, stored): (Option<String>, Option<String>, Vec<bool>) =
                    ::redis::pipe()
                        .atomic()
                        .hget(&versions, sid)
                        .hget(&summaries, sid)
                        .cmd("SMISMEMBER")
                        .arg(&uuids_key)
                        .arg(&uuids)
                        .arg("")
                        .query_async(conn)
                        .await
                        .map_err(backend(action.clone()))?;
                let mut stored = stored.into_iter();
                let known: std::collections::HashSet<&str> = entries
                    .iter()
                    .filter_map(entry_uuid)
                    .filter(|_| stored.next().unwrap_or(false))
                    .collect();
                let fresh: Vec<StoreEntry> = fresh_entries(entries, |u| known.contains(u))
                    .into_iter()
                    .cloned()
                    .collect();
                if fresh.is_empty() {
                    return Ok(());
                }
                let prev = summary
                    .map(|text| parse_summary(sid, &text, 0))
                    .transpose()?;
                let folded = fold_session_summary(prev.as_ref(), key, &fresh);
                (
                    version.unwrap_or_else(|| "0".into()),
                    Value::Object(folded.data).to_string(),
                )
            } else {
                (String::new(), String::new())
            };
            let mut call = self.append_script.prepare_invoke();
            call.key(&entries_key)
                .key(&uuids_key)
                .key(&sessions)
                .key(&summaries)
                .key(&versions)
                .key(self.subkeys_key(pk, sid));
            call.arg(sid).arg(sub).arg(&version).arg(&data);
            for (uuid, text) in encoded {
                call.arg(*uuid).arg(text);
            }
            let added: i64 = call
                .invoke_async(conn)
                .await
                .map_err(backend(action.clone()))?;
            if added >= 0 {
                return Ok(());
            }
        }
        Err(StoreError::Contended {
            key: key.to_string(),
            attempts: MAX_ATTEMPTS,
        })
    }
}
