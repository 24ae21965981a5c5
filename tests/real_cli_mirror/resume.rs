//! The resume-after-config-loss scenario, shared by the file store test and
//! the PostgreSQL/Redis ones: two turns mirrored into a store, the CLI's
//! whole config dir deleted (as if on another machine), then a resume from
//! the store whose next model request carries the first turns.

use std::sync::Arc;

use claude_agent::store::SessionStore;
use claude_agent_testkit::model::{ModelScript, Reply};

use crate::real_cli::{Rig, TURN, turn};

/// Runs the scenario against `store`; returns without asserting when the
/// real CLI is absent (the rig says so).
pub(crate) async fn resume_after_config_loss(store: Arc<dyn SessionStore>) {
    let script = ModelScript::new()
        .reply(Reply::text("Noted: pineapple."))
        .reply(Reply::text("Still here."))
        .reply(Reply::text("It was pineapple."));
    let Some(rig) = Rig::start(script).await else {
        return;
    };
    let connect = |options| {
        let builder = rig.builder(options).session_store(store.clone());
        async move {
            tokio::time::timeout(TURN, builder.connect())
                .await
                .unwrap()
                .unwrap()
        }
    };
    let first = connect(rig.options()).await;
    first.send("remember pineapple").await.unwrap();
    let (_, r1) = turn(&first).await;
    first.send("are you there?").await.unwrap();
    turn(&first).await;
    let session_id = r1.session_id.clone().unwrap();
    let report = tokio::time::timeout(TURN, first.shutdown()).await.unwrap();
    assert_eq!(report.mirror_unpersisted, Some(0), "{report:?}");
    assert!(report.mirror_persisted > Some(0), "{report:?}");

    let config = rig.home.path().join(".claude");
    std::fs::remove_dir_all(&config).unwrap();

    let second = connect(rig.options().resume(&session_id)).await;
    second.send("what was it?").await.unwrap();
    let (_, r3) = turn(&second).await;
    assert_eq!(r3.result.as_deref(), Some("It was pineapple."), "{r3:?}");
    tokio::time::timeout(TURN, second.shutdown()).await.unwrap();

    let main = rig.server.main_requests();
    assert_eq!(main.len(), 3);
    let history = main[2].body["messages"].to_string();
    for part in [
        "remember pineapple",
        "Noted: pineapple.",
        "are you there?",
        "what was it?",
    ] {
        assert!(history.contains(part), "{part} missing: {history:.800}");
    }
}
