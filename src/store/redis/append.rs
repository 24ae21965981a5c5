//! A Redis store's append: under the session's lock for a main key, read
//! the version, the summary and which uuids are stored, fold, then run the
//! append script, which checks the version again.

use std::borrow::Cow;

use ::redis::aio::ConnectionManager;
use serde_json::Value;

use super::lock::RedisLock;
use super::{LOCK_LEASE, MAX_ATTEMPTS, RedisStore, backend, parse_summary};
use crate::store::entry::{StoreEntry, fresh_entries};
use crate::store::session_store::StoreResult;
use crate::store::summary::fold_entries;
use crate::store::{SessionKey, StoreError};

impl RedisStore {
    pub(super) async fn append_batch(
        &self,
        key: &SessionKey,
        entries: &[StoreEntry],
    ) -> StoreResult<()> {
        let (pk, sid) = (key.project_key.as_str(), key.session_id.as_str());
        // Entries go to the server as their text; each uuid is read once.
        let encoded: Vec<(Cow<'_, str>, &str)> = entries
            .iter()
            .map(|entry| (entry.uuid().unwrap_or_default(), entry.as_str()))
            .collect();
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
        encoded: &[(Cow<'_, str>, &str)],
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
                let uuids: Vec<&str> = encoded
                    .iter()
                    .map(|(uuid, _)| uuid.as_ref())
                    .filter(|uuid| !uuid.is_empty())
                    .collect();
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
                let known: std::collections::HashSet<&str> = uuids
                    .iter()
                    .copied()
                    .filter(|_| stored.next().unwrap_or(false))
                    .collect();
                let fresh = fresh_entries(entries, |u| known.contains(u));
                if fresh.is_empty() {
                    return Ok(());
                }
                let prev = summary
                    .map(|text| parse_summary(sid, &text, 0))
                    .transpose()?;
                let folded = fold_entries(prev.as_ref(), key, fresh.iter().map(|(e, _)| *e));
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
                call.arg(uuid.as_ref()).arg(*text);
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
