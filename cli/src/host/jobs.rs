//! The `--jobs` file: one JSON object per line,
//! `{"tenant": "...", "prompt": "...", ...options}`. The format (shared
//! with `submit` and `worker`) is the library's
//! [`JobSpec`](claude_agent::fleet::JobSpec); this applies it to `host`'s
//! base options.

use claude_agent::fleet::parse_jobs;
use claude_agent::options::Options;
use serde_json::Value;

/// One job of the file.
#[derive(Debug, Clone)]
pub(crate) struct Job {
    /// 1-based line number in the file.
    pub(crate) line: usize,
    /// The job's own `id`, when given (echoed in the output).
    pub(crate) id: Option<Value>,
    pub(crate) tenant: String,
    pub(crate) prompt: String,
    pub(crate) options: Options,
}

/// Parses every line (blank lines and `#` comments are skipped). Errors
/// name the line; all of them are returned, not just the first.
pub(crate) fn parse(text: &str, base: &Options) -> Result<Vec<Job>, Vec<String>> {
    let mut errors = Vec::new();
    let jobs = parse_jobs(text)?
        .into_iter()
        .filter_map(|j| {
            let (line, job) = (j.line, j.job);
            let mut options = match job.options(base.clone()) {
                Ok(o) => o,
                Err(e) => {
                    errors.push(format!("line {line}: {e}"));
                    return None;
                }
            };
            // A job naming a session continues it.
            if let Some(session) = job.session_id {
                options = options.resume(session);
            }
            Some(Job {
                line,
                id: job.id,
                tenant: job.tenant,
                prompt: job.prompt,
                options,
            })
        })
        .collect();
    if errors.is_empty() {
        Ok(jobs)
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_parse_with_options_and_errors_name_their_line() {
        let text = r#"
# a comment
{"tenant": "a", "prompt": "one", "model": "m1", "max_turns": 2, "allowed_tools": ["Read"], "env": {"K": "V"}}
{"tenant": "b", "prompt": "two", "id": 7}
"#;
        let jobs = parse(text, &Options::new()).unwrap();
        assert_eq!(jobs.len(), 2);
        assert_eq!((jobs[0].line, jobs[0].tenant.as_str()), (3, "a"));
        assert_eq!(jobs[1].id, Some(serde_json::json!(7)));
        let bad = "{\"prompt\": \"x\"}\nnot json\n{\"tenant\": \"t\", \"prompt\": \"p\", \"modle\": \"x\"}\n{\"tenant\": \"t\", \"prompt\": \"p\", \"max_turns\": -1}";
        let errors = parse(bad, &Options::new()).unwrap_err();
        assert_eq!(errors.len(), 4, "{errors:?}");
        assert!(errors[0].starts_with("line 1: missing \"tenant\""));
        assert!(errors[1].starts_with("line 2: not a JSON object"));
        assert!(errors[2].contains("unknown option \"modle\""));
        assert!(errors[3].contains("max_turns"));
    }
}
