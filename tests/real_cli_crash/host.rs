#![allow(unreachable_pub)]
//! The host the crash tests SIGKILL: one real-CLI session mirrored into
//! the store the outer run names, turn after turn until it is killed.
//!
//! It is this test binary re-executed with [`ROLE`] set; everything it
//! needs comes in its environment. HOME and the model server's variables
//! are the process's own, so the CLI inherits them and the mirror looks for
//! the session file under that HOME.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use claude_agent::store::{
    FileStore, PostgresOptions, PostgresStore, RedisOptions, RedisStore, SessionStore,
};
use claude_agent::{client::ClientBuilder, options::Options};
use futures::StreamExt;

/// Set (to anything) in the re-executed host.
pub const ROLE: &str = "CLAUDE_AGENT_TEST_CRASH_HOST";
/// `file`, `postgres` or `redis`.
pub const STORE_KIND: &str = "CLAUDE_AGENT_TEST_CRASH_STORE_KIND";
/// The file store's folder, or the server's URL.
pub const STORE_AT: &str = "CLAUDE_AGENT_TEST_CRASH_STORE_AT";
/// The PostgreSQL schema or the Redis key prefix.
pub const STORE_NAME: &str = "CLAUDE_AGENT_TEST_CRASH_STORE_NAME";
/// The CLI to run: the real one behind a wrapper copying its stdout.
pub const CLI: &str = "CLAUDE_AGENT_TEST_CRASH_CLI";
/// The CLI's working directory.
pub const CWD: &str = "CLAUDE_AGENT_TEST_CRASH_CWD";
/// The session id the CLI is started with.
pub const SESSION: &str = "CLAUDE_AGENT_TEST_CRASH_SESSION";

fn var(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("{name} is not set"))
}

async fn open_store() -> Arc<dyn SessionStore> {
    let at = var(STORE_AT);
    match var(STORE_KIND).as_str() {
        "file" => Arc::new(FileStore::new(at)),
        "postgres" => {
            let options = PostgresOptions::default().schema(var(STORE_NAME));
            Arc::new(PostgresStore::connect(&at, options).await.unwrap())
        }
        "redis" => {
            let options = RedisOptions::default().prefix(var(STORE_NAME));
            Arc::new(RedisStore::connect(&at, options).await.unwrap())
        }
        other => panic!("unknown store kind {other}"),
    }
}

/// Runs turns until killed; prints `HOST <cli pid>` (the wrapper's, the
/// group's leader) once the session is up
/// and `TURN <n>` after each result. Returns only if something failed
/// (then it panics).
pub async fn run() {
    let store = open_store().await;
    let cli = PathBuf::from(var(CLI));
    let options = Options::new()
        .cli_path(cli)
        .cwd(var(CWD))
        .session_id(var(SESSION))
        .allowed_tools(["Glob"]);
    let client = ClientBuilder::new(options)
        .session_store(store)
        .initialize_timeout(Duration::from_secs(120))
        .connect()
        .await
        .unwrap();
    println!("HOST {}", client.pid().unwrap());
    for n in 0.. {
        client.send(format!("turn {n}")).await.unwrap();
        let mut stream = client.receive_response();
        while let Some(message) = stream.next().await {
            message.unwrap();
        }
        println!("TURN {n}");
    }
}
