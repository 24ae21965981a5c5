//! Session stores: durable copies of session transcripts, so a session can
//! outlive its process and its machine.
//!
//! A [`SessionStore`] keeps the CLI's transcript entries ([`StoreEntry`]:
//! JSON objects carried as their raw text, deduplicated by `uuid`) under a [`SessionKey`], lists a
//! project's sessions, and maintains each session's summary with
//! [`fold_session_summary`]. Adapters:
//!
//! | store | needs |
//! |---|---|
//! | [`MemoryStore`] | nothing (this process only) |
//! | [`FileStore`] | a local folder; safe across processes on one machine |
//! | `PostgresStore` | feature `postgres`, a PostgreSQL server |
//! | `RedisStore` | feature `redis`, a Redis server |
//!
//! [`open_store`] opens any of them from a URL. The testkit's
//! `store_conformance` checks an implementation against the contract
//! documented on [`SessionStore`].

mod entry;
mod error;
mod file;
mod key;
mod latest;
pub(crate) mod materialize;
mod memory;
pub mod mirror;
mod open;
#[cfg(feature = "postgres")]
mod postgres;
#[cfg(feature = "redis")]
mod redis;
mod session_store;
mod store_entry;
mod summary;
mod timestamp;

#[cfg(feature = "redis")]
pub use self::redis::{RedisOptions, RedisStore};
pub use entry::{SessionListEntry, SessionSummary};
pub use error::StoreError;
pub use file::FileStore;
pub use key::{SessionKey, key_for_mirror_path, project_key_for, sanitize_path};
pub use latest::latest_session;
pub use materialize::{
    LOAD_TIMEOUT, Materialized, ResumeError, is_session_id, materialize_session,
};
pub use memory::MemoryStore;
pub use mirror::{MirrorMode, StoreOverflow};
pub use open::open_store;
#[cfg(feature = "postgres")]
pub use postgres::{PostgresOptions, PostgresStore};
pub use session_store::{SessionStore, StoreResult};
pub use store_entry::StoreEntry;
pub use summary::fold_session_summary;
#[cfg(feature = "sessions")]
pub(crate) use timestamp::iso_to_epoch_ms;
