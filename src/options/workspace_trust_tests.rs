//! `workspaceTrust` reaches `initialize` as the TypeScript SDK sends it,
//! and an accepted attestation without an absolute directory is dropped.

use super::argv_tests::{argv, with};
use super::*;
use serde_json::json;

#[test]
fn an_accepted_trust_for_an_absolute_directory_goes_in_initialize_only() {
    let o = Options::new().workspace_trust(WorkspaceTrust::accepted("/srv/repo"));
    assert_eq!(
        o.initialize_request(None),
        json!({"subtype": "initialize", "hooks": null,
               "workspaceTrust": {"accepted": true, "directory": "/srv/repo"}})
    );
    assert_eq!(argv(o), with(&[]), "nothing on argv");
}

#[test]
fn an_accepted_trust_without_an_absolute_directory_is_not_sent() {
    for trust in [
        WorkspaceTrust::accepted("relative/repo"),
        WorkspaceTrust {
            accepted: true,
            directory: None,
        },
    ] {
        let o = Options::new().workspace_trust(trust.clone());
        assert_eq!(
            o.initialize_request(None),
            json!({"subtype": "initialize", "hooks": null}),
            "{trust:?}"
        );
        assert_eq!(trust.claim_value(), None, "{trust:?}");
    }
}

#[test]
fn a_declined_trust_goes_in_initialize_but_never_in_a_claim() {
    let declined = WorkspaceTrust::default();
    let o = Options::new().workspace_trust(declined.clone());
    assert_eq!(
        o.initialize_request(None)["workspaceTrust"],
        json!({"accepted": false})
    );
    assert_eq!(declined.claim_value(), None);
    assert_eq!(
        WorkspaceTrust::accepted("/srv/repo").claim_value(),
        Some(json!({"accepted": true, "directory": "/srv/repo"}))
    );
}
