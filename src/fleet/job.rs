//! A job: the `host` command's job format (one JSON object,
//! `{"tenant": "...", "prompt": "...", ...options}`), plus an id and an
//! optional session to continue.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::job_options;
use crate::options::Options;

/// A job that cannot run as written: a missing or mistyped field, an
/// unknown option. The text says which, for a person.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
#[non_exhaustive]
pub struct InvalidJob {
    /// What is wrong.
    pub reason: String,
}

impl InvalidJob {
    fn new(reason: impl Into<String>) -> Self {
        Self {
            reason: reason.into(),
        }
    }
}

/// One job. Serializes to (and parses from) the job format's JSON object:
/// the option keys ([`OPTION_KEYS`](super::OPTION_KEYS)) sit beside
/// `tenant` and `prompt`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct JobSpec {
    /// The job's id: a string or a number (the `host` command echoes it
    /// as given; the fleet uses its text, see [`JobSpec::job_id`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Value>,
    /// Who the job is for (admission limits, the store's project key).
    pub tenant: String,
    /// The prompt of its one turn.
    pub prompt: String,
    /// A session to continue (`--resume`, restored from the session store
    /// on a machine that never ran it); absent, the job starts one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// What a fleet worker does when the job comes back after the worker
    /// that ran it died mid-turn (`"on_redelivery"`: `"resume"`, the
    /// default, or `"start_over"`, which a job with a `session_id` cannot
    /// ask for). The `host` command, which never redelivers, ignores it.
    #[serde(default, skip_serializing_if = "Redelivery::is_default")]
    pub on_redelivery: Redelivery,
    /// The other keys: options of the CLI.
    #[serde(flatten)]
    pub options: Map<String, Value>,
}

impl JobSpec {
    /// A job for `tenant` with `prompt` and no options.
    pub fn new(tenant: impl Into<String>, prompt: impl Into<String>) -> Self {
        Self {
            id: None,
            tenant: tenant.into(),
            prompt: prompt.into(),
            session_id: None,
            on_redelivery: Redelivery::default(),
            options: Map::new(),
        }
    }

    /// With this id.
    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(Value::String(id.into()));
        self
    }

    /// Continuing this session.
    pub fn continuing(mut self, session_id: impl Into<String>) -> Self {
        self.session_id = Some(session_id.into());
        self
    }

    /// Doing `what` when redelivered after a crash ([`Redelivery`]).
    pub fn on_redelivery(mut self, what: Redelivery) -> Self {
        self.on_redelivery = what;
        self
    }

    /// With the option `key` (one of [`OPTION_KEYS`](super::OPTION_KEYS)).
    pub fn with_option(mut self, key: impl Into<String>, value: Value) -> Self {
        self.options.insert(key.into(), value);
        self
    }

    /// Parses one JSON object and checks it ([`JobSpec::validate`]).
    pub fn parse(text: &str) -> Result<Self, InvalidJob> {
        let value: Value = serde_json::from_str(text).map_err(|e| {
            let prefix: String = text.chars().take(60).collect();
            InvalidJob::new(format!("not a JSON object ({e}): {prefix}"))
        })?;
        let Value::Object(mut obj) = value else {
            return Err(InvalidJob::new("not a JSON object"));
        };
        let mut take = |key: &str| -> Result<Option<String>, InvalidJob> {
            match obj.remove(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s)),
                Some(_) => Err(InvalidJob::new(format!("\"{key}\" must be a string"))),
            }
        };
        let tenant = take("tenant")?.ok_or_else(|| InvalidJob::new("missing \"tenant\""))?;
        let prompt = take("prompt")?.ok_or_else(|| InvalidJob::new("missing \"prompt\""))?;
        let session_id = take("session_id")?;
        let on_redelivery = match take("on_redelivery")?.as_deref() {
            None | Some("resume") => Redelivery::Resume,
            Some("start_over") => Redelivery::StartOver,
            Some(other) => {
                return Err(InvalidJob::new(format!(
                    "\"on_redelivery\" must be \"resume\" or \"start_over\", not {other:?}"
                )));
            }
        };
        let id = obj.remove("id").filter(|v| !v.is_null());
        let job = Self {
            id,
            tenant,
            prompt,
            session_id,
            on_redelivery,
            options: obj,
        };
        job.validate()?;
        Ok(job)
    }

    /// Checks what [`JobSpec::parse`] checks, for a job built otherwise:
    /// a non-empty tenant, an id that is a string or a number, known
    /// options of the right types.
    pub fn validate(&self) -> Result<(), InvalidJob> {
        if self.tenant.is_empty() {
            return Err(InvalidJob::new("\"tenant\" is empty"));
        }
        if let Some(id) = &self.id {
            JobId::from_value(id)?;
        }
        if self.session_id.as_deref() == Some("") {
            return Err(InvalidJob::new("\"session_id\" is empty"));
        }
        if self.session_id.is_some() && self.on_redelivery == Redelivery::StartOver {
            return Err(InvalidJob::new(
                "\"on_redelivery\": \"start_over\" is for a job that starts a conversation; \
                 one that continues \"session_id\" always resumes it",
            ));
        }
        self.options(Options::new()).map(drop)
    }

    /// `base` with this job's options applied.
    pub fn options(&self, base: Options) -> Result<Options, InvalidJob> {
        job_options::apply(base, &self.options).map_err(InvalidJob::new)
    }

    /// The id as the fleet uses it, when the job has one.
    pub fn job_id(&self) -> Result<Option<JobId>, InvalidJob> {
        self.id.as_ref().map(JobId::from_value).transpose()
    }
}

/// What a redelivered job does with the session its earlier attempt left,
/// when a worker died mid-turn (SIGKILL, OOM, a lost machine) and the job
/// came back to another worker (or the same one).
///
/// [`Resume`](Redelivery::Resume) is the default because the earlier
/// attempt's tools have already acted (files written, commands run,
/// messages sent): resumed, the model sees what it did and can finish
/// from there; started over, it would do those things again without
/// knowing. The store keeps everything older than the mirror's durability
/// bound (1 s unless
/// [`ClientBuilder::mirror_persist_within`](crate::client::ClientBuilder::mirror_persist_within)
/// says otherwise), so a resumed attempt loses at most that much of the
/// dead one.
/// [`StartOver`](Redelivery::StartOver) suits jobs whose tools are
/// idempotent or absent and whose result should come from one clean run
/// (a half-finished turn in the history would steer the answer).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Redelivery {
    /// Resume the job's session from the session store (or from the
    /// session file a dead attempt left on this machine) when it has one;
    /// a first delivery, or a redelivery whose attempt left nothing,
    /// starts it.
    #[default]
    Resume,
    /// Run each delivery in a fresh session: nothing of an earlier
    /// attempt is resumed (its entries stay in the store under their own
    /// session id).
    StartOver,
}

impl Redelivery {
    fn is_default(&self) -> bool {
        *self == Self::default()
    }
}

/// A job's id in the fleet: the deduplication id of its submission and of
/// its outcome.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct JobId(String);

/// Bound on an id's length (it travels in a header and names a subject).
const MAX_ID_LEN: usize = 256;

impl JobId {
    /// A fresh random id (a UUID).
    #[cfg(feature = "nats")]
    pub fn generate() -> Self {
        Self(uuid::Uuid::new_v4().to_string())
    }

    /// An id from its text: non-empty, at most 256 bytes, no control
    /// characters.
    pub fn new(id: impl Into<String>) -> Result<Self, InvalidJob> {
        let id = id.into();
        if id.is_empty() || id.len() > MAX_ID_LEN || id.chars().any(char::is_control) {
            return Err(InvalidJob::new(format!(
                "\"id\" must be 1 to {MAX_ID_LEN} bytes without control characters"
            )));
        }
        Ok(Self(id))
    }

    /// A job line's `id`: a string, or a number taken as its text.
    pub fn from_value(v: &Value) -> Result<Self, InvalidJob> {
        match v {
            Value::String(s) => Self::new(s.clone()),
            Value::Number(n) => Self::new(n.to_string()),
            _ => Err(InvalidJob::new("\"id\" must be a string or a number")),
        }
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The id as one subject token: itself when it is only letters,
    /// digits, `-` and `_`, else `x` and its bytes in hex (so `.`, `*`,
    /// `>` and spaces never split or widen a subject).
    pub fn subject_token(&self) -> String {
        let plain = self
            .0
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if plain {
            self.0.clone()
        } else {
            let mut token = String::with_capacity(1 + 2 * self.0.len());
            token.push('x');
            for b in self.0.bytes() {
                token.push_str(&format!("{b:02x}"));
            }
            token
        }
    }

    /// The session id a job that starts a conversation runs under: a
    /// UUID derived from the job id, so whichever worker runs (or reruns)
    /// the job uses the same one, and a rerun after a worker died finds
    /// the first attempt's transcript in the session store.
    #[cfg(feature = "nats")]
    pub fn session_uuid(&self) -> String {
        uuid::Uuid::new_v5(&SESSION_NAMESPACE, self.0.as_bytes()).to_string()
    }
}

/// The UUID namespace of [`JobId::session_uuid`] (a fixed random UUID).
#[cfg(feature = "nats")]
const SESSION_NAMESPACE: uuid::Uuid =
    uuid::Uuid::from_u128(0x6c1d_52c4_8f0e_4a8b_9d3e_2b17_a5c0_f419);

impl fmt::Display for JobId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One job of a jobs file, with its 1-based line number.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct JobLine {
    /// Where it is in the file.
    pub line: usize,
    /// The job.
    pub job: JobSpec,
}

/// Parses a jobs file: one JSON object per line; blank lines and `#`
/// comments are skipped. Every bad line is reported (`line N: reason`),
/// not just the first.
pub fn parse_jobs(text: &str) -> Result<Vec<JobLine>, Vec<String>> {
    let mut jobs = Vec::new();
    let mut errors = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        match JobSpec::parse(trimmed) {
            Ok(job) => jobs.push(JobLine { line, job }),
            Err(e) => errors.push(format!("line {line}: {e}")),
        }
    }
    if errors.is_empty() {
        Ok(jobs)
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn jobs_parse_with_options_and_errors_name_their_line() {
        let text = r#"
# a comment
{"tenant": "a", "prompt": "one", "model": "m1", "max_turns": 2, "allowed_tools": ["Read"], "env": {"K": "V"}}
{"tenant": "b", "prompt": "two", "id": 7, "session_id": "s"}
"#;
        let jobs = parse_jobs(text).unwrap();
        assert_eq!(jobs.len(), 2);
        assert_eq!((jobs[0].line, jobs[0].job.tenant.as_str()), (3, "a"));
        assert_eq!(jobs[1].job.id, Some(serde_json::json!(7)));
        assert_eq!(jobs[1].job.job_id().unwrap().unwrap().as_str(), "7");
        assert_eq!(jobs[1].job.session_id.as_deref(), Some("s"));
        let bad = "{\"prompt\": \"x\"}\nnot json\n{\"tenant\": \"t\", \"prompt\": \"p\", \"modle\": \"x\"}\n{\"tenant\": \"t\", \"prompt\": \"p\", \"max_turns\": -1}\n{\"tenant\": \"t\", \"prompt\": \"p\", \"id\": [1]}";
        let errors = parse_jobs(bad).unwrap_err();
        assert_eq!(errors.len(), 5, "{errors:?}");
        assert!(errors[0].starts_with("line 1: missing \"tenant\""));
        assert!(errors[1].starts_with("line 2: not a JSON object"));
        assert!(errors[2].contains("unknown option \"modle\""));
        assert!(errors[3].contains("max_turns"));
        assert!(errors[4].contains("\"id\" must be a string or a number"));
    }

    #[test]
    fn a_job_round_trips_through_its_json_with_options_beside_the_fields() {
        let job = JobSpec::new("t", "p")
            .with_id("j 1")
            .with_option("model", serde_json::json!("m"));
        let text = serde_json::to_string(&job).unwrap();
        assert_eq!(JobSpec::parse(&text).unwrap(), job);
        assert!(text.contains("\"model\":\"m\""), "{text}");
        assert!(
            !text.contains("on_redelivery"),
            "the default is left out: {text}"
        );
    }

    #[test]
    fn on_redelivery_parses_round_trips_and_refuses_unknown_values() {
        let text = r#"{"tenant": "t", "prompt": "p", "on_redelivery": "start_over"}"#;
        let job = JobSpec::parse(text).unwrap();
        assert_eq!(job.on_redelivery, Redelivery::StartOver);
        assert!(job.options.is_empty(), "not taken for an option");
        let again = serde_json::to_string(&job).unwrap();
        assert!(again.contains(r#""on_redelivery":"start_over""#), "{again}");
        assert_eq!(JobSpec::parse(&again).unwrap(), job);
        let resume = JobSpec::parse(r#"{"tenant": "t", "prompt": "p", "on_redelivery": "resume"}"#);
        assert_eq!(resume.unwrap().on_redelivery, Redelivery::Resume);
        assert_eq!(
            JobSpec::new("t", "p").on_redelivery,
            Redelivery::Resume,
            "resume is the default"
        );
        let bad = JobSpec::parse(r#"{"tenant": "t", "prompt": "p", "on_redelivery": "again"}"#);
        assert!(
            bad.unwrap_err()
                .reason
                .contains("\"resume\" or \"start_over\""),
            "names the choices"
        );
        let both =
            r#"{"tenant": "t", "prompt": "p", "session_id": "s", "on_redelivery": "start_over"}"#;
        assert!(
            JobSpec::parse(both)
                .unwrap_err()
                .reason
                .contains("always resumes"),
            "a continued session cannot start over"
        );
        let typed: JobSpec = serde_json::from_str(
            r#"{"tenant": "t", "prompt": "p", "on_redelivery": "start_over"}"#,
        )
        .unwrap();
        assert_eq!(typed.on_redelivery, Redelivery::StartOver);
    }

    #[test]
    fn subject_tokens_never_carry_subject_syntax() {
        assert_eq!(JobId::new("a-1_B").unwrap().subject_token(), "a-1_B");
        assert_eq!(
            JobId::new("a.b *>").unwrap().subject_token(),
            "x612e62202a3e"
        );
    }

    #[cfg(feature = "nats")]
    #[test]
    fn session_ids_are_stable_uuids_per_job() {
        let id = JobId::new("job-1").unwrap();
        assert_eq!(
            id.session_uuid(),
            JobId::new("job-1").unwrap().session_uuid()
        );
        assert_ne!(
            id.session_uuid(),
            JobId::new("job-2").unwrap().session_uuid()
        );
        assert!(crate::store::is_session_id(&id.session_uuid()));
    }
}
