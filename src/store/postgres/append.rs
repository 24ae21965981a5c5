//! A PostgreSQL store's append: one transaction that locks the key's row,
//! inserts the entries whose uuids are new, and folds the summary.

use serde_json::Value;

use super::{PostgresStore, col, pg, subpath, summary_from};
use crate::store::entry::{StoreEntry, entry_uuid};
use crate::store::session_store::StoreResult;
use crate::store::{SessionKey, fold_session_summary};

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
