//! Every test that `docs/semantics.md` cites exists, so a renamed or deleted
//! test cannot leave a claim pointing at nothing.
//!
//! Citations are bracketed lists of backticked names, possibly over several
//! lines: `[`file::test`, `module::tests::test`]`. `file::test` names a
//! function in `tests/file.rs`; `a::b::tests::test` a function in the
//! crate's `src/a/b.rs` (or `src/a/b/mod.rs`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every citation in the document, in order.
fn citations(doc: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = doc;
    while let Some(at) = rest.find("[`") {
        let tail = &rest[at + 1..];
        let Some(end) = tail.find(']') else { break };
        for item in tail[..end].split(',') {
            let name = item.trim().trim_matches('`');
            if !name.is_empty() {
                out.push(name.to_owned());
            }
        }
        rest = &tail[end..];
    }
    out
}

fn defines_fn(file: &Path, name: &str) -> bool {
    std::fs::read_to_string(file)
        .map(|text| text.contains(&format!("fn {name}(")))
        .unwrap_or(false)
}

/// Where a citation points, or why it points nowhere.
fn resolve(citation: &str) -> Result<(), String> {
    let parts: Vec<&str> = citation.split("::").collect();
    match parts.as_slice() {
        [file] => {
            let path = root().join("tests").join(format!("{file}.rs"));
            path.exists()
                .then_some(())
                .ok_or_else(|| format!("no test file {}", path.display()))
        }
        [file, test] => {
            let path = root().join("tests").join(format!("{file}.rs"));
            defines_fn(&path, test)
                .then_some(())
                .ok_or_else(|| format!("no fn {test} in {}", path.display()))
        }
        [module @ .., "tests", test] => {
            let base = root().join("src").join(module.join("/"));
            let candidates = [base.with_extension("rs"), base.join("mod.rs")];
            candidates
                .iter()
                .any(|p| defines_fn(p, test))
                .then_some(())
                .ok_or_else(|| format!("no fn {test} in {}", base.display()))
        }
        _ => Err(format!("cannot read citation {citation:?}")),
    }
}

#[test]
fn every_test_cited_by_the_semantics_exists() {
    let doc = std::fs::read_to_string(root().join("docs/semantics.md")).unwrap();
    let cited = citations(&doc);
    assert!(cited.len() >= 10, "too few citations found: {cited:?}");
    let broken: Vec<String> = cited.iter().filter_map(|c| resolve(c).err()).collect();
    assert!(
        broken.is_empty(),
        "semantics.md cites tests that do not exist:\n{}",
        broken.join("\n")
    );
}

#[test]
fn the_citation_reader_finds_multi_line_lists_and_rejects_missing_tests() {
    let doc = "a claim [`escalation`,\n`semantics_citations::the_citation_reader_finds_multi_line_lists_and_rejects_missing_tests`] more";
    let cited = citations(doc);
    assert_eq!(cited.len(), 2, "{cited:?}");
    assert!(cited.iter().all(|c| resolve(c).is_ok()), "{cited:?}");
    assert!(resolve("escalation::no_such_test").is_err());
    assert!(resolve("no_such_file").is_err());
    assert!(resolve("shutdown::tests::no_such_test").is_err());
    assert!(
        resolve("supervisor::shutdown::ladder::tests::escalation_names_what_ended_the_cli").is_ok()
    );
}
