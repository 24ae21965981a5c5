//! A session's mirror task: splits the queued frames into raw entries,
//! batches them per transcript file, appends with retries, and reports what it could not.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde::de::IgnoredAny;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

mod spilling;

use super::inbox::{Dropped, Inbox, Item};
use super::spill::Spill;
use super::{Counts, MAX_PENDING_BYTES, MAX_PENDING_ENTRIES, MirrorMode, MirrorSettings};
use crate::protocol::{Message, MirrorError, MirrorKey, SystemMessage};
use crate::store::{SessionKey, SessionStore, StoreEntry, StoreError, key_for_mirror_path};

/// Attempts per batch before it is dropped with a `mirror_error` (under
/// the spill policy, only when the error is one a retry cannot fix).
pub const APPEND_ATTEMPTS: usize = 3;
/// The waits between attempts.
pub const APPEND_BACKOFF: [Duration; APPEND_ATTEMPTS - 1] =
    [Duration::from_millis(100), Duration::from_millis(400)];
/// Default bound on one append (the mirror settings' `append_timeout`). A
/// timed-out append is not retried: it may still land, and a retry would
/// race it.
pub const APPEND_TIMEOUT: Duration = Duration::from_secs(60);
/// Under the spill policy, the wait between attempts once
/// [`APPEND_ATTEMPTS`] have failed with an error a later attempt may not
/// meet: the batch is kept and retried until the store takes it (or the
/// shutdown gives up), while newer frames spill. Fixed, not configurable:
/// it bounds no wait (nothing waits on a failing store's retries; the
/// spill file holds what comes meanwhile), it only paces the retries, so
/// it decides how soon after the store recovers the replay starts (within
/// a second) and how often a failing store is asked (once a second).
const FAILING_RETRY: Duration = Duration::from_secs(1);

/// A bound as the error messages say it: whole seconds as `60 s` (as
/// before the bound was configurable), anything else as `Debug` does.
struct Seconds(Duration);

impl std::fmt::Display for Seconds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.subsec_nanos() == 0 {
            write!(f, "{} s", self.0.as_secs())
        } else {
            write!(f, "{:?}", self.0)
        }
    }
}

/// A `transcript_mirror` frame as the task reads it: the entries split
/// into their raw texts (each validated as JSON, no tree built) and the
/// path borrowed from the line.
#[derive(Deserialize)]
struct Frame<'a> {
    #[serde(rename = "filePath", borrow, default)]
    file_path: Option<Cow<'a, str>>,
    #[serde(default)]
    entries: Option<Vec<StoreEntry>>,
}

/// A frame's entries counted, not kept (for what is given up).
#[derive(Deserialize)]
struct Counted {
    #[serde(default)]
    entries: Option<Vec<IgnoredAny>>,
}

/// Entries waiting for their append, per transcript, in first-seen order.
#[derive(Default)]
struct Pending {
    /// Taken from the inbox, not yet parsed.
    backlog: VecDeque<Item>,
    batches: Vec<(SessionKey, Vec<StoreEntry>)>,
    entries: usize,
    bytes: usize,
    /// The last frame's `filePath` and its key: a flood writes one file,
    /// so the path is mapped once, not per frame.
    last_path: Option<(String, SessionKey)>,
    /// When the oldest entry not yet persisted was taken in.
    since: Option<tokio::time::Instant>,
    /// The spill file (spill policy only).
    spill: Option<Spill>,
}

impl Pending {
    /// Adds a frame's entries for the file at `path` mapped to `key`.
    fn add(&mut self, path: String, key: SessionKey, entries: Vec<StoreEntry>, bytes: usize) {
        self.mark();
        self.entries += entries.len();
        self.bytes += bytes;
        push_batch(&mut self.batches, &key, entries);
        self.last_path = Some((path, key));
    }

    /// Adds a frame's entries when `path` is the last frame's file; gives
    /// them back otherwise.
    fn add_same_file(
        &mut self,
        path: &str,
        entries: Vec<StoreEntry>,
        bytes: usize,
    ) -> Result<(), Vec<StoreEntry>> {
        match &self.last_path {
            Some((p, key)) if p == path => {
                if !entries.is_empty() && self.since.is_none() {
                    self.since = Some(tokio::time::Instant::now());
                }
                self.entries += entries.len();
                self.bytes += bytes;
                push_batch(&mut self.batches, key, entries);
                Ok(())
            }
            _ => Err(entries),
        }
    }

    /// Starts the persistence clock if nothing was pending.
    fn mark(&mut self) {
        if self.since.is_none() {
            self.since = Some(tokio::time::Instant::now());
        }
    }

    fn is_full(&self) -> bool {
        self.entries >= MAX_PENDING_ENTRIES || self.bytes >= MAX_PENDING_BYTES
    }
}

/// `entries` onto `key`'s batch, or a new batch at the end.
fn push_batch(
    batches: &mut Vec<(SessionKey, Vec<StoreEntry>)>,
    key: &SessionKey,
    entries: Vec<StoreEntry>,
) {
    match batches.iter_mut().find(|(k, _)| k == key) {
        Some((_, batch)) => batch.extend(entries),
        None => batches.push((key.clone(), entries)),
    }
}

pub(super) struct Worker {
    store: Arc<dyn SessionStore>,
    projects_dir: PathBuf,
    project_key: Option<String>,
    mode: MirrorMode,
    flush_deadline: Duration,
    persist_within: Option<Duration>,
    /// Bound on one append.
    append_timeout: Duration,
    /// The spill policy's folder.
    spill_dir: Option<PathBuf>,
    counts: Arc<Counts>,
    errors: mpsc::Sender<Message>,
    /// Cancelled when the shutdown was cut short: give up now.
    give_up: CancellationToken,
}

/// Why the task stopped waiting for the store.
enum GaveUp {
    /// The flush deadline after the CLI's output ended passed.
    Deadline,
    /// The shutdown was hurried.
    Hurried,
}

impl Worker {
    pub(super) fn new(
        store: Arc<dyn SessionStore>,
        settings: &MirrorSettings,
        projects_dir: PathBuf,
        counts: Arc<Counts>,
        errors: mpsc::Sender<Message>,
    ) -> Self {
        let spill_dir = settings.spill_dir(&projects_dir);
        Self {
            spill_dir,
            store,
            projects_dir,
            project_key: settings.project_key.clone(),
            mode: settings.mode,
            flush_deadline: settings.flush_deadline,
            persist_within: settings.persist_within,
            append_timeout: settings.append_timeout,
            counts,
            errors,
            give_up: CancellationToken::new(),
        }
    }

    /// Gives up what is pending once `token` is cancelled.
    pub(super) fn give_up_on(mut self, token: CancellationToken) -> Self {
        self.give_up = token;
        self
    }

    /// Mirrors until the inbox closes and everything is appended, or the
    /// flush deadline after the close passes, or the give-up token is
    /// cancelled; what is left then counts as unpersisted.
    pub(super) async fn run(self, inbox: Arc<Inbox>) {
        let flush_deadline = self.flush_deadline;
        let deadline = async {
            inbox.closed().await;
            tokio::time::sleep(flush_deadline).await;
        };
        let mut pending = Pending {
            spill: self.spill_dir.clone().map(Spill::new),
            ..Pending::default()
        };
        let ctx = self.ctx(&inbox);
        let why = {
            let work = Self::work(&mut pending, &ctx);
            tokio::select! {
                () = work => return,
                () = deadline => GaveUp::Deadline,
                () = self.give_up.cancelled() => GaveUp::Hurried,
            }
        };
        // Given up: the batch in flight (still pending until it succeeds)
        // and everything behind it. Hurried, the inbox may still be open:
        // take what is queued without waiting.
        let mut lost = pending.entries as u64;
        let (items, dropped) = inbox.take_by(Some(tokio::time::Instant::now())).await;
        lost += dropped.entries;
        for item in pending.backlog.drain(..).chain(items) {
            if let Item::Mirror(line) = item {
                if let Ok(frame) = serde_json::from_slice::<Counted>(&line) {
                    lost += frame.entries.map_or(0, |e| e.len() as u64);
                }
            }
        }
        let kept = ctx.keep_spill(&mut pending).await;
        lost += kept.as_ref().map_or(0, |(_, n)| *n);
        ctx.counts.unpersisted(lost);
        if lost == 0 {
            return;
        }
        // No silent loss: a store that stalled through the flush deadline
        // (or a hurried shutdown) is reported in the stream too, not only
        // in the counts.
        let key = pending
            .batches
            .first()
            .map(|(k, _)| k.clone())
            .or_else(|| pending.last_path.take().map(|(_, k)| k));
        let kept = kept.map_or_else(String::new, |(kept, _)| kept);
        let error = match why {
            GaveUp::Deadline => format!(
                "the store did not take {lost} entries within the flush deadline ({} s) \
                 after the CLI's output ended{kept}",
                flush_deadline.as_secs_f64(),
            ),
            GaveUp::Hurried => format!(
                "the store did not take {lost} entries before the shutdown was cut short{kept}"
            ),
        };
        ctx.report(key.as_ref(), error);
    }

    fn ctx<'a>(&'a self, inbox: &'a Inbox) -> Ctx<'a> {
        Ctx {
            inbox,
            store: &*self.store,
            projects_dir: &self.projects_dir,
            project_key: self.project_key.as_deref(),
            mode: self.mode,
            persist_within: self.persist_within,
            append_timeout: self.append_timeout,
            counts: &self.counts,
            errors: &self.errors,
        }
    }

    async fn work(pending: &mut Pending, ctx: &Ctx<'_>) {
        loop {
            let closed = ctx.inbox.is_closed();
            let replaying = pending.spill.as_ref().is_some_and(Spill::has_frames);
            // What was taken in is persisted within the bound, turn's end
            // or not: a crash loses at most that much. A replay in progress
            // only looks for what is new.
            let due = if replaying {
                Some(tokio::time::Instant::now())
            } else {
                ctx.persist_within
                    .and_then(|b| pending.since.map(|t| t + b))
            };
            let (items, dropped) = ctx.inbox.take_by(due).await;
            if dropped.frames > 0 {
                ctx.overflowed(&dropped);
            }
            if let Some(spill) = &mut pending.spill {
                ctx.spill_queued(spill).await;
            }
            pending.backlog.extend(items);
            while let Some(item) = pending.backlog.pop_front() {
                match item {
                    Item::Mirror(line) => {
                        ctx.accept(pending, &line);
                        if ctx.mode == MirrorMode::Eager || pending.is_full() {
                            ctx.flush(pending).await;
                        }
                    }
                    Item::TurnEnd => ctx.flush(pending).await,
                }
            }
            if due.is_some_and(|d| d <= tokio::time::Instant::now()) {
                ctx.flush(pending).await;
            }
            if ctx.replay(pending).await {
                continue;
            }
            // Closed before the take: that take emptied it for good.
            if closed {
                ctx.flush(pending).await;
                return;
            }
        }
    }
}

/// What the work loop borrows from the worker.
struct Ctx<'a> {
    inbox: &'a Inbox,
    store: &'a dyn SessionStore,
    projects_dir: &'a Path,
    project_key: Option<&'a str>,
    mode: MirrorMode,
    persist_within: Option<Duration>,
    append_timeout: Duration,
    counts: &'a Counts,
    errors: &'a mpsc::Sender<Message>,
}

impl Ctx<'_> {
    /// Parses one frame into `pending` (or counts it lost).
    fn accept(&self, pending: &mut Pending, line: &[u8]) {
        let frame = match serde_json::from_slice::<Frame<'_>>(line) {
            Ok(f) => f,
            Err(e) => {
                self.report(
                    None,
                    format!("a transcript_mirror frame did not parse: {e}"),
                );
                return;
            }
        };
        let entries = frame.entries.unwrap_or_default();
        let path = frame.file_path.unwrap_or_default();
        let Err(entries) = pending.add_same_file(&path, entries, line.len()) else {
            return;
        };
        let path = path.into_owned();
        match key_for_mirror_path(Path::new(&path), self.projects_dir) {
            Some(mut key) => {
                if let Some(project) = self.project_key {
                    project.clone_into(&mut key.project_key);
                }
                pending.add(path, key, entries, line.len());
            }
            None if entries.is_empty() => {}
            None => {
                self.counts.unpersisted(entries.len() as u64);
                self.report(
                    None,
                    format!(
                        "{} entries of {path} not mirrored: the file is not a transcript under {} \
                         (does the CLI use another config directory?)",
                        entries.len(),
                        self.projects_dir.display()
                    ),
                );
            }
        }
    }

    /// Appends every pending batch, in order; each leaves `pending` only
    /// once it is done with (so a batch in flight at the deadline counts as
    /// unpersisted).
    async fn flush(&self, pending: &mut Pending) {
        while let Some((key, batch)) = pending.batches.first() {
            if !batch.is_empty() {
                let appended = match &mut pending.spill {
                    Some(spill) => {
                        self.spilling_while(spill, self.append(key, batch, true))
                            .await
                    }
                    None => self.append(key, batch, false).await,
                };
                match appended {
                    Ok(()) => self.counts.persisted(batch.len()),
                    Err(error) => {
                        self.counts.unpersisted(batch.len() as u64);
                        self.report(Some(key), error);
                    }
                }
            }
            let (_, batch) = pending.batches.remove(0);
            pending.entries -= batch.len();
        }
        pending.bytes = 0;
        pending.since = None;
    }

    /// One batch with retries; the last error's text on failure. With
    /// `until_taken` (the spill policy), a store that keeps failing in a
    /// way that may pass (its backend, a lock, contention) is retried
    /// every [`FAILING_RETRY`] until it takes the batch, as a stalled one
    /// is waited for: the batch cannot go to the spill file, which may
    /// already hold newer frames and is replayed in order.
    async fn append(
        &self,
        key: &SessionKey,
        batch: &[StoreEntry],
        until_taken: bool,
    ) -> Result<(), String> {
        let mut attempt = 0;
        loop {
            if attempt > 0 {
                let wait = APPEND_BACKOFF.get(attempt - 1).unwrap_or(&FAILING_RETRY);
                tokio::time::sleep(*wait).await;
            }
            attempt += 1;
            let appending = self.store.append(key, batch);
            match tokio::time::timeout(self.append_timeout, appending).await {
                Ok(Ok(())) => {
                    if attempt > APPEND_ATTEMPTS {
                        tracing::info!(%key, attempts = attempt, "session mirror: the store takes appends again");
                    }
                    return Ok(());
                }
                Ok(Err(e)) => {
                    tracing::debug!(%key, attempt, error = %e, "session mirror: append failed");
                    let last = with_sources(&e);
                    if attempt < APPEND_ATTEMPTS {
                        continue;
                    }
                    if !(until_taken && may_pass(&e)) {
                        return Err(format!("after {attempt} attempts: {last}"));
                    }
                    if attempt == APPEND_ATTEMPTS {
                        tracing::warn!(%key, error = %last,
                            "session mirror: the store keeps failing; retrying, newer entries spill");
                    }
                }
                Err(_) => {
                    return Err(format!(
                        "the append did not finish within {}",
                        Seconds(self.append_timeout)
                    ));
                }
            }
        }
    }

    fn overflowed(&self, dropped: &Dropped) {
        self.counts.unpersisted(dropped.entries);
        let key = dropped
            .file_path
            .as_deref()
            .and_then(|p| key_for_mirror_path(Path::new(p), self.projects_dir));
        self.report(
            key.as_ref(),
            format!(
                "the store fell behind: {} queued frames ({} entries) dropped, oldest first",
                dropped.frames, dropped.entries
            ),
        );
    }

    /// A `system/mirror_error` into the session's stream, if there is room.
    fn report(&self, key: Option<&SessionKey>, error: String) {
        tracing::warn!(key = key.map(ToString::to_string), %error, "session mirror error");
        let message = match key {
            Some(k) => {
                let mut mk = MirrorKey::new(k.project_key.clone(), k.session_id.clone());
                if let Some(sub) = &k.subpath {
                    mk = mk.with_subpath(sub.clone());
                }
                MirrorError::new(mk, error, crate::random::uuid_v4())
            }
            None => MirrorError {
                error: Some(error),
                uuid: Some(crate::random::uuid_v4()),
                ..MirrorError::default()
            },
        };
        let message = Message::System(SystemMessage::from(message));
        if self.errors.try_send(message).is_err() {
            tracing::warn!("session mirror: mirror_error dropped (no room in the message stream)");
        }
    }
}

/// Whether a later attempt may succeed where this one failed: not for a
/// batch or key the store refuses as such.
fn may_pass(e: &StoreError) -> bool {
    matches!(
        e,
        StoreError::Backend { .. } | StoreError::LockTimeout { .. } | StoreError::Contended { .. }
    )
}

/// An error and its sources, `: `-joined (the store's own message rarely
/// says why by itself).
fn with_sources(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

#[cfg(test)]
mod tests;
