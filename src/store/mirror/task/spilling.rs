//! The mirror task's side of the spill policy: frames past the queue go
//! to the spill file, also while an append is in flight; once the store
//! took everything older, the file is replayed, in order, before the task
//! takes newer frames from the queue again.

use std::future::Future;

use bytes::Bytes;

use super::{Counted, Ctx, MAX_PENDING_BYTES, MirrorMode, Pending, Spill};

/// Entries in a mirror frame (0 if it does not parse).
fn entries_in(line: &[u8]) -> u64 {
    serde_json::from_slice::<Counted>(line)
        .ok()
        .and_then(|c| c.entries)
        .map_or(0, |e| e.len() as u64)
}

impl Ctx<'_> {
    /// Writes what waits in the inbox's spill queue to the file; what
    /// cannot be written is lost, and said so.
    pub(super) async fn spill_queued(&self, spill: &mut Spill) {
        let frames = self.inbox.take_spill();
        if frames.is_empty() {
            return;
        }
        let entries = frames.iter().map(|f| entries_in(f)).sum();
        if let Err(e) = spill.write(&frames, entries).await {
            self.counts.unpersisted(entries);
            self.report(
                None,
                format!(
                    "the store fell behind and {entries} entries could not be spilled to {}: {e}",
                    spill.dir().display()
                ),
            );
        }
    }

    /// Runs `work` (an append), spilling what overflows meanwhile: a
    /// stalled store must not stall the spill.
    pub(super) async fn spilling_while<T>(
        &self,
        spill: &mut Spill,
        work: impl Future<Output = T>,
    ) -> T {
        let mut work = std::pin::pin!(work);
        loop {
            tokio::select! {
                biased;
                out = &mut work => return out,
                () = self.inbox.spilled() => self.spill_queued(spill).await,
            }
        }
    }

    /// Replays a part of the spill file once everything older is in the
    /// store; ends spilling once the file is replayed. `true`: more to do
    /// (the caller looks for new frames without waiting, then calls again).
    pub(super) async fn replay(&self, pending: &mut Pending) -> bool {
        let Some(spill) = &pending.spill else {
            return false;
        };
        let older_waiting = !pending.backlog.is_empty() || self.inbox.has_frames();
        if older_waiting {
            return spill.has_frames();
        }
        if !spill.has_frames() {
            if self.inbox.end_spill() && spill.location().is_some() {
                if let Some(spill) = &mut pending.spill {
                    if let Err(e) = spill.remove().await {
                        tracing::warn!(error = %e, "session mirror: a replayed spill file was not removed");
                    }
                }
            }
            return false;
        }
        // The store must take what is older first (and show it takes
        // appends again) before the replay.
        self.flush(pending).await;
        let Some(spill) = &mut pending.spill else {
            return false;
        };
        let frames: Vec<Bytes> = match spill.read(MAX_PENDING_BYTES).await {
            Ok(frames) => frames,
            Err(e) => {
                let lost = spill.entries();
                self.counts.unpersisted(lost);
                let at = spill
                    .location()
                    .map(|(p, at)| format!("{} from byte {at}", p.display()));
                self.report(
                    None,
                    format!(
                        "{lost} spilled entries could not be read back from {}: {e}",
                        at.unwrap_or_default()
                    ),
                );
                spill.forget();
                return false;
            }
        };
        spill.replayed(frames.iter().map(|f| entries_in(f)).sum());
        for line in &frames {
            self.accept(pending, line);
            if self.mode == MirrorMode::Eager || pending.is_full() {
                self.flush(pending).await;
            }
        }
        self.flush(pending).await;
        true
    }

    /// At the shutdown's give-up: what waits for the spill file is written
    /// to it, and the file stays. The entries not replayed, and a note
    /// naming the file for the `mirror_error`.
    pub(super) async fn keep_spill(&self, pending: &mut Pending) -> Option<(String, u64)> {
        let spill = pending.spill.as_mut()?;
        self.spill_queued(spill).await;
        let entries = spill.entries();
        let (path, at) = spill.location()?;
        if entries == 0 {
            return None;
        }
        Some((
            format!(
                "; {entries} of them are kept in {} from byte {at}",
                path.display()
            ),
            entries,
        ))
    }
}
