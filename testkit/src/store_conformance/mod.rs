//! A conformance suite for [`SessionStore`] implementations: the official
//! SDKs' fourteen behavioural contracts plus this crate's uuid
//! idempotency and rejection of non-object entries, each checked on a
//! fresh store.
//!
//! ```no_run
//! use claude_agent::store::{MemoryStore, StoreError};
//! use claude_agent_testkit::store_conformance::{ConformanceOptions, run_store_conformance};
//!
//! # async fn check() -> Result<(), Box<dyn std::error::Error>> {
//! let report = run_store_conformance(
//!     || async { Ok::<_, StoreError>(MemoryStore::new()) },
//!     ConformanceOptions::default(),
//! )
//! .await?;
//! assert!(report.skipped.is_empty());
//! # Ok(()) }
//! ```

mod contracts;

use std::future::Future;

use claude_agent::store::{SessionKey, SessionStore, StoreError};

/// The optional methods of [`SessionStore`]; their contracts run only when
/// the store implements them (does not answer [`StoreError::Unsupported`])
/// and they are not skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Optional {
    /// [`SessionStore::list_sessions`].
    ListSessions,
    /// [`SessionStore::list_session_summaries`].
    ListSessionSummaries,
    /// [`SessionStore::delete`].
    Delete,
    /// [`SessionStore::list_subkeys`].
    ListSubkeys,
}

/// How to run the suite.
#[derive(Debug, Clone, Default)]
pub struct ConformanceOptions {
    /// Optional methods not to check even if the store implements them.
    pub skip: Vec<Optional>,
}

/// Which contracts passed and which were skipped (their optional method
/// is missing or skipped).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConformanceReport {
    /// The contracts that passed, in the order they ran.
    pub passed: Vec<&'static str>,
    /// The contracts not run.
    pub skipped: Vec<&'static str>,
}

/// A contract the store broke, or a store that could not be made.
#[derive(Debug, thiserror::Error)]
#[error("session store contract `{contract}` failed: {problem}")]
pub struct ConformanceError {
    /// The contract's name, e.g. `delete_main_cascades_to_subkeys`.
    pub contract: &'static str,
    /// What the store did wrong.
    pub problem: String,
    /// The store's error, when a call failed.
    #[source]
    pub source: Option<StoreError>,
}

/// Run every contract, each on a fresh store from `make_store` (which must
/// return an isolated, empty store each time: a new schema, key prefix or
/// folder). Stops at the first broken contract.
pub async fn run_store_conformance<S, F, Fut>(
    mut make_store: F,
    options: ConformanceOptions,
) -> Result<ConformanceReport, ConformanceError>
where
    S: SessionStore,
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<S, StoreError>>,
{
    let probe = fresh(&mut make_store, "probe").await?;
    let has = Has {
        list_sessions: implements(
            &options,
            Optional::ListSessions,
            probe.list_sessions("conformance-probe").await,
        )?,
        summaries: implements(
            &options,
            Optional::ListSessionSummaries,
            probe.list_session_summaries("conformance-probe").await,
        )?,
        delete: implements(
            &options,
            Optional::Delete,
            probe
                .delete(&SessionKey::new("conformance-probe", "probe"))
                .await,
        )?,
        list_subkeys: implements(
            &options,
            Optional::ListSubkeys,
            probe.list_subkeys("conformance-probe", "probe").await,
        )?,
    };
    drop(probe);

    let mut report = ConformanceReport::default();
    for contract in contracts::ALL {
        if !contract.needs.iter().all(|needed| has.get(*needed)) {
            report.skipped.push(contract.name);
            continue;
        }
        let store = fresh(&mut make_store, contract.name).await?;
        (contract.check)(&store, has)
            .await
            .map_err(|failure| ConformanceError {
                contract: contract.name,
                problem: failure.problem,
                source: failure.source,
            })?;
        report.passed.push(contract.name);
    }
    Ok(report)
}

async fn fresh<S, F, Fut>(make_store: &mut F, contract: &'static str) -> Result<S, ConformanceError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<S, StoreError>>,
{
    make_store().await.map_err(|e| ConformanceError {
        contract,
        problem: "the factory could not make a store".into(),
        source: Some(e),
    })
}

/// Whether the probe's answer shows the method implemented.
fn implements<T>(
    options: &ConformanceOptions,
    method: Optional,
    answer: Result<T, StoreError>,
) -> Result<bool, ConformanceError> {
    match answer {
        Err(e) if e.is_unsupported() => Ok(false),
        Err(e) => Err(ConformanceError {
            contract: "probe",
            problem: format!("{method:?} failed on an empty store"),
            source: Some(e),
        }),
        Ok(_) => Ok(!options.skip.contains(&method)),
    }
}

/// Which optional methods the contracts may use.
#[derive(Debug, Clone, Copy)]
struct Has {
    list_sessions: bool,
    summaries: bool,
    delete: bool,
    list_subkeys: bool,
}

impl Has {
    fn get(self, method: Optional) -> bool {
        match method {
            Optional::ListSessions => self.list_sessions,
            Optional::ListSessionSummaries => self.summaries,
            Optional::Delete => self.delete,
            Optional::ListSubkeys => self.list_subkeys,
        }
    }
}
