//! Session helpers over the CLI's local transcripts or a session store:
//! list sessions (one project, a directory with its git worktrees, or
//! every project; paged), read one's info and messages (paged, and its
//! subagents'), rename, tag, archive, delete and fork it, and import a
//! local session into a store.
//!
//! Every helper takes a [`SessionSource`]: the CLI's config folder on this
//! machine ([`LocalSessions`]: `<config>/projects/<project>/<id>.jsonl`) or
//! any [`SessionStore`](crate::store::SessionStore). Sessions are found by
//! project key ([`project_key_for`](crate::store::project_key_for) of the
//! working directory) and session id. Mutations append the same entries the
//! CLI writes (`custom-title`, `tag`), so the CLI and other SDKs see them.

mod archive;
mod catalog;
mod error;
mod fork;
mod import;
mod info;
mod list_options;
mod listing;
mod local;
mod messages;
mod mutations;
mod parallel;
mod source;
mod time;
mod worktrees;

pub use archive::{archive_session, unarchive_session};
pub use error::SessionsError;
pub use fork::{ForkOptions, fork_session};
pub use import::{ImportOptions, import_session, import_session_with};
pub use info::SessionInfo;
pub use list_options::ListSessions;
pub use listing::{
    find_session, list_sessions, list_sessions_with, session_info, session_info_by_id,
};
pub use local::LocalSessions;
pub use messages::{
    MessageKind, MessageOptions, SessionMessage, list_subagents, session_messages,
    session_messages_with, subagent_messages, subagent_messages_with,
};
pub use mutations::{delete_session, rename_session, tag_session};
pub use source::SessionSource;
