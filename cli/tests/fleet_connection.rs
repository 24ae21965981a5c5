//! A `worker` says when it loses its NATS connection and when it is back:
//! its private `nats-server` is killed and started again on the same port.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../tests/common/mod.rs"]
mod common;
mod fleet_common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;

use fleet_common::*;

#[test]
#[ignore = "needs nats-server"]
fn a_worker_reports_losing_nats_and_reconnecting_in_json_and_in_words() {
    let Some(mut server) = NatsServer::start() else {
        return;
    };
    let nats = server.url();
    let prefix = unique("fleet-conn");
    let dir = tempfile::tempdir().unwrap();
    let fake = turn_after(dir.path(), 0);
    let store = format!("file://{}", dir.path().join("store").display());
    let json = Worker::spawn(&nats, &prefix, &store, &fake.program, &fake.env, &[]);
    // The same in human mode: its stderr lines, as they come.
    let home = tempfile::tempdir().unwrap();
    let mut human = Command::new(env!("CARGO_BIN_EXE_claude-agent"))
        .args([
            "worker", "--queue", &nats, "--store", &store, "--prefix", &prefix,
        ])
        .arg("--cli")
        .arg(&fake.program)
        .current_dir(home.path())
        .env("HOME", home.path())
        .envs(fake.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, lines) = mpsc::channel::<String>();
    let pipe = human.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(pipe).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut said = Vec::new();
    let mut wait_for = |text: &str| {
        while !said.iter().any(|l: &String| l.contains(text)) {
            match lines.recv_timeout(PATIENCE) {
                Ok(line) => said.push(line),
                Err(_) => panic!("no \"{text}\" in {said:?}"),
            }
        }
        said.clone()
    };
    wait_for("pulling jobs");

    server.kill();
    let kind = |k: &'static str| move |e: &[serde_json::Value]| e.iter().any(|v| v["kind"] == k);
    assert!(
        json.wait_for(PATIENCE, kind("nats_disconnected")),
        "{:?}",
        json.events()
    );
    let said_lost = wait_for("lost the connection to NATS");
    let lost = said_lost.iter().find(|l| l.contains("lost the")).unwrap();
    assert!(lost.contains(&nats), "{lost}");
    assert!(
        !json
            .events()
            .iter()
            .any(|v| v["kind"] == "nats_reconnected"),
        "reconnected before the server was back: {:?}",
        json.events()
    );

    server.restart();
    assert!(
        json.wait_for(PATIENCE, kind("nats_reconnected")),
        "{:?}",
        json.events()
    );
    let said_back = wait_for("reconnected to NATS");
    let back = said_back
        .iter()
        .find(|l| l.contains("reconnected"))
        .unwrap();
    assert!(back.contains(&nats), "{back}");
    assert!(
        !said_back.iter().any(|l| l.contains("client error")),
        "one line for the outage, not one per attempt: {said_back:?}"
    );
    let reconnected = json
        .events()
        .into_iter()
        .find(|v| v["kind"] == "nats_reconnected")
        .unwrap();
    assert_eq!(reconnected["url"], nats.as_str());

    let _ = human.kill();
    let _ = human.wait();
}
