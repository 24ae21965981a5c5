//! A real failure's report through the public API: every level says its
//! own part once, and the OS error is still there at the end. (Every
//! variant's chain is walked in the crates' `error_chains` unit tests.)

use std::error::Error as _;
use std::os::unix::fs::PermissionsExt;

use claude_agent::{Error, client::ClientBuilder, options::Options};

#[tokio::test]
async fn a_cli_that_cannot_be_spawned_reports_each_level_once() {
    // An executable file in no format the kernel runs (no `#!`, not ELF):
    // discovery accepts it, exec fails with ENOEXEC.
    let dir = tempfile::tempdir().unwrap();
    let cli = dir.path().join("claude");
    std::fs::write(&cli, "this is not a program\n").unwrap();
    std::fs::set_permissions(&cli, std::fs::Permissions::from_mode(0o755)).unwrap();

    let err = ClientBuilder::new(Options::new().cli_path(&cli))
        .connect()
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Start(_)), "{err:#?}");

    let mut levels = vec![err.to_string()];
    let mut source = err.source();
    while let Some(cause) = source {
        levels.push(cause.to_string());
        source = cause.source();
    }
    let spawn = format!("failed to spawn {}", cli.display());
    assert_eq!(
        levels[..3],
        [
            "failed to start the session",
            "failed to open the channel",
            spawn.as_str()
        ]
    );
    assert_eq!(levels.len(), 4, "{levels:?}");
    assert!(levels[3].ends_with("(os error 8)"), "{levels:?}");
    assert_eq!(format!("{err:?}"), levels.join(": "));
}
