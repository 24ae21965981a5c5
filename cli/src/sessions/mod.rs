//! `claude-agent sessions`: list, show, rename, tag, archive, delete, fork
//! and import sessions, in the CLI's local config folder or in a session
//! store.

mod output;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, Subcommand};
use claude_agent::sessions::{
    ForkOptions, ListSessions, LocalSessions, SessionSource, SessionsError, archive_session,
    delete_session, fork_session, import_session, list_sessions_with, list_subagents,
    rename_session, session_info, session_messages, subagent_messages, tag_session,
    unarchive_session,
};
use claude_agent::store::{SessionStore, StoreError, project_key_for};

use crate::args::seconds;
use output::Output;

/// Where the sessions are and how to print them (every subcommand).
#[derive(Debug, Args)]
pub(crate) struct SessionsArgs {
    #[command(subcommand)]
    command: SessionsCommand,
    /// A session store (`file:///path`, `postgres://...`, `redis://...`)
    /// instead of the CLI's local config folder (`CLAUDE_CONFIG_DIR`, else
    /// `~/.claude`).
    #[arg(long, value_name = "URL", global = true)]
    store: Option<String>,
    /// The project's working directory (default: the current one).
    #[arg(long, value_name = "DIR", global = true)]
    cwd: Option<PathBuf>,
    /// One JSON object per line.
    #[arg(long, global = true)]
    json: bool,
    /// Seconds the whole command may take (connecting included).
    #[arg(long, value_name = "SECS", default_value_t = 30.0, global = true)]
    timeout: f64,
    #[command(flatten)]
    store_timeout: crate::store::StoreTimeout,
}

#[derive(Debug, Subcommand)]
enum SessionsCommand {
    /// The project's sessions (and its git worktrees'), newest first.
    List {
        /// At most N sessions (the newest, after --offset).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        limit: Option<u64>,
        /// Skip the N newest sessions first (paging with --limit).
        #[arg(long, value_name = "N", default_value_t = 0)]
        offset: u64,
        /// Every project's sessions, not only the working directory's
        /// (local config folder only).
        #[arg(long)]
        all_projects: bool,
        /// Only the working directory's project, not its git worktrees'.
        #[arg(long)]
        no_worktrees: bool,
    },
    /// A session's details and messages (or one subagent's messages).
    Show {
        /// The session id.
        id: String,
        /// Show this subagent's messages instead.
        #[arg(long, value_name = "AGENT_ID")]
        agent: Option<String>,
    },
    /// Set a session's title.
    Rename {
        /// The session id.
        id: String,
        /// The new title.
        title: String,
    },
    /// Set or clear a session's tag.
    Tag {
        /// The session id.
        id: String,
        /// The tag (omit with --clear).
        #[arg(required_unless_present = "clear", conflicts_with = "clear")]
        tag: Option<String>,
        /// Remove the tag.
        #[arg(long)]
        clear: bool,
    },
    /// Archive a session: it stays, listed as archived, until a prompt is
    /// sent in it or it is unarchived (local config folder only).
    Archive {
        /// The session id.
        id: String,
    },
    /// Undo `archive`.
    Unarchive {
        /// The session id.
        id: String,
    },
    /// Delete a session and its subagent transcripts.
    Delete {
        /// The session id.
        id: String,
    },
    /// Copy a session into a new one (fresh ids) and print the new id.
    Fork {
        /// The session id.
        id: String,
        /// Copy up to and including this message uuid.
        #[arg(long, value_name = "UUID")]
        up_to: Option<String>,
        /// The fork's title (default: the source's, with " (fork)").
        #[arg(long)]
        title: Option<String>,
    },
    /// Copy a local session, with its subagents, into the --store.
    Import {
        /// The session id.
        id: String,
    },
}

/// A failure, printed as one line.
#[derive(Debug, thiserror::Error)]
enum Failure {
    #[error(transparent)]
    Sessions(#[from] SessionsError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("import copies a local session into a store: give --store URL")]
    ImportNeedsStore,
    #[error("gave up after {0:?} (--timeout)")]
    TimedOut(Duration),
    #[error("the store's folder {} does not exist", .0.display())]
    NoStoreFolder(PathBuf),
    /// The store could not be opened (the line `crate::store::open` says).
    #[error("{0}")]
    StoreOpen(String),
}

pub(crate) fn run(args: SessionsArgs) -> ExitCode {
    let limits = seconds("timeout", args.timeout).and_then(|t| Ok((t, args.store_timeout.get()?)));
    let (limit, store_timeout) = match limits {
        Ok(limits) => limits,
        Err(e) => {
            eprintln!("claude-agent sessions: {e}");
            return ExitCode::from(crate::EXIT_USAGE);
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("claude-agent sessions: cannot start the async runtime: {e}");
            return ExitCode::from(2);
        }
    };
    let out = Output::new(args.json);
    let outcome = runtime.block_on(async {
        tokio::time::timeout(limit, execute(&args, store_timeout, &out))
            .await
            .unwrap_or(Err(Failure::TimedOut(limit)))
    });
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("claude-agent sessions: {}", one_line(&e));
            ExitCode::FAILURE
        }
    }
}

/// The error and its causes on one line.
fn one_line(error: &(dyn std::error::Error + 'static)) -> String {
    let mut line = error.to_string();
    let mut cause = error.source();
    while let Some(e) = cause {
        let text = e.to_string();
        // Transparent wrappers repeat their source's message.
        if !line.ends_with(&text) {
            line.push_str(": ");
            line.push_str(&text);
        }
        cause = e.source();
    }
    line.replace('\n', " ")
}

async fn execute(
    args: &SessionsArgs,
    store_timeout: Duration,
    out: &Output,
) -> Result<(), Failure> {
    let cwd = match &args.cwd {
        Some(dir) => dir.clone(),
        None => std::env::current_dir().map_err(|e| SessionsError::Io {
            action: "read the current directory".into(),
            source: e,
        })?,
    };
    let project = project_key_for(&cwd);
    let store = match &args.store {
        Some(url) => Some(
            crate::store::open(url, store_timeout, "sessions")
                .await
                .map_err(|e| Failure::StoreOpen(e.message))?,
        ),
        None => None,
    };
    // A file store reads a missing folder as empty: a typo in the URL
    // would list nothing and succeed. Only `import` may create it.
    let folder = args.store.as_deref().and_then(crate::store::file_folder);
    if let (Some(folder), false) = (
        folder,
        matches!(args.command, SessionsCommand::Import { .. }),
    ) {
        let is_dir = tokio::fs::metadata(&folder).await.is_ok_and(|m| m.is_dir());
        if !is_dir {
            return Err(Failure::NoStoreFolder(folder));
        }
    }
    if let SessionsCommand::Import { id } = &args.command {
        let store: Arc<dyn SessionStore> = store.ok_or(Failure::ImportNeedsStore)?;
        let local = LocalSessions::from_env()?;
        let copied = import_session(&local, &store, &project, id).await?;
        out.done("imported", id, &format!("{copied} transcript(s)"));
        return Ok(());
    }
    let source = match store {
        Some(store) => SessionSource::Store(store),
        None => SessionSource::local_default()?,
    };
    match &args.command {
        SessionsCommand::List {
            limit,
            offset,
            all_projects,
            no_worktrees,
        } => {
            let options = if *all_projects {
                ListSessions::all_projects()
            } else {
                ListSessions::directory(&cwd).include_worktrees(!no_worktrees)
            };
            let count = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
            let options = options.offset(count(*offset)).limit(limit.map_or(0, count));
            out.sessions(&list_sessions_with(&source, &options).await?);
        }
        SessionsCommand::Show {
            id,
            agent: Some(agent),
        } => {
            for message in subagent_messages(&source, &project, id, agent).await? {
                out.message(&message);
            }
        }
        SessionsCommand::Show { id, agent: None } => {
            let messages = session_messages(&source, &project, id).await?;
            if let Some(info) = session_info(&source, &project, id).await? {
                out.session(&info);
            }
            for message in &messages {
                out.message(message);
            }
            for agent in list_subagents(&source, &project, id).await? {
                out.subagent(&agent);
            }
        }
        SessionsCommand::Rename { id, title } => {
            rename_session(&source, &project, id, title).await?;
            out.done("renamed", id, title.trim());
        }
        SessionsCommand::Tag { id, tag, .. } => {
            tag_session(&source, &project, id, tag.as_deref()).await?;
            out.done("tagged", id, tag.as_deref().unwrap_or(""));
        }
        SessionsCommand::Archive { id } => {
            archive_session(&source, &project, id).await?;
            out.done("archived", id, "");
        }
        SessionsCommand::Unarchive { id } => {
            unarchive_session(&source, &project, id).await?;
            out.done("unarchived", id, "");
        }
        SessionsCommand::Delete { id } => {
            delete_session(&source, &project, id).await?;
            out.done("deleted", id, "");
        }
        SessionsCommand::Fork { id, up_to, title } => {
            let options = ForkOptions {
                up_to_message: up_to.clone(),
                title: title.clone(),
            };
            let fork = fork_session(&source, &project, id, &options).await?;
            out.done("forked", &fork, id);
        }
        SessionsCommand::Import { .. } => {}
    }
    Ok(())
}
