//! Session helpers over the CLI's local transcripts or a session store:
//! list sessions, read one's info and messages (and its subagents'),
//! rename, tag, delete and fork it, and import a local session into a
//! store.
//!
//! Every helper takes a [`SessionSource`]: the CLI's config folder on this
//! machine ([`LocalSessions`]: `<config>/projects/<project>/<id>.jsonl`) or
//! any [`SessionStore`](crate::store::SessionStore). Sessions are found by
//! project key ([`project_key_for`](crate::store::project_key_for) of the
//! working directory) and session id. Mutations append the same entries the
//! CLI writes (`custom-title`, `tag`), so the CLI and other SDKs see them.

mod error;
mod fork;
mod import;
mod info;
mod listing;
mod local;
mod messages;
mod mutations;
mod parallel;
mod source;
mod time;

pub use error::SessionsError;
pub use fork::{ForkOptions, fork_session};
pub use import::import_session;
pub use info::SessionInfo;
pub use listing::{list_sessions, session_info};
pub use local::LocalSessions;
pub use messages::{
    MessageKind, SessionMessage, list_subagents, session_messages, subagent_messages,
};
pub use mutations::{delete_session, rename_session, tag_session};
pub use source::SessionSource;
