//! A PostgreSQL store's append: one transaction that locks the key's row,
//! inserts the entries whose uuids are new in one set-based statement,
//! and folds the summary.

use std::borrow::Cow;
use std::collections::HashSet;

use serde_json::Value;

use super::{PostgresStore, col, pg, subpath, summary_from};
use crate::store::SessionKey;
use crate::store::entry::StoreEntry;
use crate::store::session_store::StoreResult;
use crate::store::summary::fold_entries;

impl PostgresStore {
    pub(super) async fn append_batch(
        &self,
        key: &SessionKey,
        entries: &[StoreEntry],
    ) -> StoreResult<()> {
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
            .prepare_cached(&self.sql.insert_entries)
            .await
            .map_err(pg(action.clone()))?;
        let uuids: Vec<Option<Cow<'_, str>>> = entries.iter().map(StoreEntry::uuid).collect();
        let uuid_args: Vec<Option<&str>> = uuids.iter().map(Option::as_deref).collect();
        let texts: Vec<&str> = entries.iter().map(StoreEntry::as_str).collect();
        let rows = tx
            .query(&insert, &[pk, sid, &sub, &uuid_args, &texts])
            .await
            .map_err(pg(action.clone()))?;
        if rows.is_empty() {
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
            // The entries inserted: those without a uuid, and the first of
            // each uuid the server reported inserted.
            let mut inserted = HashSet::new();
            for row in &rows {
                if let Some(uuid) = col::<Option<String>>(row, 0, "entries.uuid")? {
                    inserted.insert(uuid);
                }
            }
            let mut seen = HashSet::new();
            let fresh = entries.iter().zip(&uuids).filter(|(_, uuid)| match uuid {
                None => true,
                Some(u) => inserted.contains(u.as_ref()) && seen.insert(u.as_ref()),
            });
            let fresh = fresh.map(|(entry, _)| entry);
            let mut summary = fold_entries(prev.as_ref(), key, fresh);
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
