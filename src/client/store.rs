//! A session store's settings: where the transcript is mirrored, and how
//! (the work is done by the mirror and store-restore extensions).

use std::sync::Arc;
use std::time::Duration;

use super::ClientBuilder;
use crate::store::SessionStore;
use crate::store::mirror::{MirrorMode, StoreOverflow};

impl ClientBuilder {
    /// Mirrors the session's transcript into `store`: the CLI is started
    /// with `--session-mirror` and its `transcript_mirror` frames are
    /// appended to the store off the read loop (see
    /// [`store::mirror`](crate::store::mirror) for batching, retries, the
    /// overflow policy and shutdown). The frames do not appear in the
    /// message stream; a batch the store could not keep does, as a
    /// `system/mirror_error` message.
    ///
    /// With [`Options::resume`](crate::options::Options::resume), the session's
    /// transcripts are first written from the store where the CLI reads
    /// them (`<config>/projects/<sanitized cwd>/<id>.jsonl` and
    /// `<id>/<subpath>.jsonl`), unless they are there already, so the
    /// resume works on a machine or config directory that never ran the
    /// session. A resume id that is not a UUID, or a session the store does
    /// not have, is passed on as is. With
    /// [`Options::continue_conversation`](crate::options::Options::continue_conversation)
    /// instead, the store's newest non-sidechain session of the project
    /// (see [`latest_session`](crate::store::latest_session)) is
    /// materialized and the CLI gets `--resume <id>` in place of
    /// `--continue`, as the official SDKs do. `fork_session` and
    /// `resume_session_at` apply to the resumed session either way.
    pub fn session_store(mut self, store: Arc<dyn SessionStore>) -> Self {
        self.runtime.session_store = Some(store);
        self
    }

    /// The project key of every mirrored transcript, instead of the one in
    /// the CLI's file path (the sanitized working directory): e.g. a
    /// tenant id on a multi-tenant host.
    pub fn store_project_key(mut self, project_key: impl Into<String>) -> Self {
        self.runtime.mirror.project_key = Some(project_key.into());
        self
    }

    /// When mirrored entries are appended (default
    /// [`MirrorMode::Batched`]: once per turn).
    pub fn mirror_mode(mut self, mode: MirrorMode) -> Self {
        self.runtime.mirror.mode = mode;
        self
    }

    /// The longest a mirrored entry waits before its append starts, even
    /// mid-turn (default [`DEFAULT_PERSIST_WITHIN`](crate::store::mirror::DEFAULT_PERSIST_WITHIN),
    /// 1 s): a host killed mid-turn loses at most about this much of the
    /// turn from the store. `None` appends only at a turn's end, every
    /// [`MAX_PENDING_ENTRIES`](crate::store::mirror::MAX_PENDING_ENTRIES)
    /// entries and at shutdown.
    pub fn mirror_persist_within(mut self, bound: Option<Duration>) -> Self {
        self.runtime.mirror.persist_within = bound;
        self
    }

    /// How long the shutdown waits for pending appends once the CLI has
    /// exited (default 10 s); what is still pending then counts as
    /// unpersisted in the report. A hurried shutdown
    /// ([`Client::hurry`](crate::client::Client::hurry)) waits at most
    /// [`mirror_hurried_flush`](Self::mirror_hurried_flush) instead.
    pub fn mirror_flush_deadline(mut self, deadline: Duration) -> Self {
        self.runtime.mirror.flush_deadline = deadline;
        self
    }

    /// How long a hurried shutdown ([`Client::hurry`](crate::client::Client::hurry),
    /// which a host's drain calls at its deadline) still gives pending
    /// appends (default [`HURRIED_FLUSH`](crate::store::mirror::HURRIED_FLUSH),
    /// 500 ms); what is pending after it counts as unpersisted.
    pub fn mirror_hurried_flush(mut self, bound: Duration) -> Self {
        self.runtime.mirror.hurried_flush = bound;
        self
    }

    /// The bound on one append to the store (default
    /// [`APPEND_TIMEOUT`](crate::store::mirror::APPEND_TIMEOUT), 60 s): an
    /// append that takes longer fails, and is not retried (it may still
    /// land, and a retry would race it).
    pub fn mirror_append_timeout(mut self, bound: Duration) -> Self {
        self.runtime.mirror.append_timeout = bound;
        self
    }

    /// What happens when the store falls behind by more than the mirror's
    /// queue (default [`StoreOverflow::Spill`] to a file beside the CLI's
    /// `projects` folder; see [`StoreOverflow`] for the policies).
    pub fn store_overflow(mut self, policy: StoreOverflow) -> Self {
        self.runtime.mirror.overflow = policy;
        self
    }

    /// Bytes of mirrored frames queued for the store before the
    /// [`store_overflow`](Self::store_overflow) policy applies (default
    /// [`MAX_QUEUED_BYTES`](crate::store::mirror::MAX_QUEUED_BYTES), 8 MiB;
    /// at least 1).
    pub fn mirror_queue_bytes(mut self, bytes: usize) -> Self {
        self.runtime.mirror.queue_bytes = bytes.max(1);
        self
    }
}
