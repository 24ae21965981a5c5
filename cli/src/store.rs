//! `--store URL` of `run` and `host`: opening the session store, and the
//! one-line texts for its failures and its `mirror_error` messages.

use std::sync::Arc;
use std::time::Duration;

use claude_agent::extensions::SessionReport;
use claude_agent::protocol::MirrorError;
use claude_agent::store::{SessionStore, StoreError, StoreOverflow, open_store};

/// `--store-timeout` of every command that opens a store.
#[derive(Debug, Clone, Copy, clap::Args)]
pub(crate) struct StoreTimeout {
    /// Seconds to wait for the session store to answer when opening it
    /// (a stalled server is reported after two seconds, and given up on
    /// after this).
    #[arg(long, value_name = "SECS", default_value_t = 10.0, global = true)]
    store_timeout: f64,
}

impl StoreTimeout {
    pub(crate) fn get(self) -> Result<Duration, String> {
        crate::args::seconds("store-timeout", self.store_timeout)
    }
}

/// `--store-overflow` of every command that mirrors into a store.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct StoreOverflowArg {
    /// What happens when the --store falls behind: drop-oldest (drop the
    /// oldest queued entries and report them), pause (stop reading the
    /// CLI's output until the store catches up), spill[=DIR] (write the
    /// overflow to a file and replay it in order; DIR defaults to
    /// mirror-spill in the CLI's config folder).
    #[arg(long, value_name = "POLICY", default_value = "spill", value_parser = parse_overflow)]
    store_overflow: StoreOverflow,
}

impl StoreOverflowArg {
    pub(crate) fn get(&self) -> StoreOverflow {
        self.store_overflow.clone()
    }
}

/// `drop-oldest`, `pause`, `spill` or `spill=DIR`.
fn parse_overflow(s: &str) -> Result<StoreOverflow, String> {
    match s.split_once('=') {
        None if s == "drop-oldest" => Ok(StoreOverflow::DropOldest),
        None if s == "pause" => Ok(StoreOverflow::Pause),
        None if s == "spill" => Ok(StoreOverflow::spill()),
        Some(("spill", dir)) if !dir.is_empty() => Ok(StoreOverflow::Spill {
            dir: Some(dir.into()),
        }),
        _ => Err("expected one of drop-oldest, pause, spill, spill=DIR".to_owned()),
    }
}

/// A store still opening after this says what the tool waits for (a
/// refused Redis connection takes over a second to be given up on: that
/// failure alone is the one line).
const SAY_WAITING_AFTER: Duration = Duration::from_secs(2);

/// Why `--store` could not be opened, in one line.
pub(crate) struct OpenFailure {
    pub(crate) message: String,
    /// The URL itself is wrong (a usage error), not the server.
    pub(crate) bad_url: bool,
}

/// Opens the store `url` names within `timeout`, or says in one line why
/// it cannot (a bad URL, a server that does not answer, a refused login).
/// A store not open after [`SAY_WAITING_AFTER`] gets a line on stderr,
/// `<command>: waiting for ...`, so a stalled server is not a silent hang.
pub(crate) async fn open(
    url: &str,
    timeout: Duration,
    command: &str,
) -> Result<Arc<dyn SessionStore>, OpenFailure> {
    let opening = tokio::time::timeout(timeout, open_store(url));
    tokio::pin!(opening);
    let slow = tokio::time::sleep(SAY_WAITING_AFTER);
    tokio::pin!(slow);
    let mut said = false;
    let opened = loop {
        tokio::select! {
            opened = &mut opening => break opened,
            () = &mut slow, if !said && timeout > SAY_WAITING_AFTER => {
                said = true;
                eprintln!(
                    "claude-agent {command}: waiting for the session store at {} to answer \
                     (up to {:.1} s, --store-timeout)",
                    address(url),
                    timeout.as_secs_f64()
                );
            }
        }
    };
    match opened {
        Ok(Ok(store)) => Ok(store),
        Ok(Err(e)) => Err(OpenFailure {
            message: with_causes(&e),
            bad_url: matches!(e, StoreError::BadUrl { .. }),
        }),
        Err(_) => Err(OpenFailure {
            message: format!(
                "the session store at {} did not answer within {:.1} s (--store-timeout)",
                address(url),
                timeout.as_secs_f64()
            ),
            bad_url: false,
        }),
    }
}

/// `scheme://host:port` of a store URL: no user, password, path or query.
pub(crate) fn address(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.split(':').next().unwrap_or(url).to_owned();
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    format!("{scheme}://{host}")
}

/// The folder a `file:` store URL names (`%XX` decoded, as `open_store`
/// reads it), or `None` for another scheme or a malformed URL.
pub(crate) fn file_folder(url: &str) -> Option<std::path::PathBuf> {
    let (scheme, rest) = url.split_once(':')?;
    if !scheme.eq_ignore_ascii_case("file") {
        return None;
    }
    let path = rest.strip_prefix("//")?;
    let path = path.strip_prefix("localhost").unwrap_or(path);
    if !path.starts_with('/') {
        return None;
    }
    let bytes = path.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            decoded.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            decoded.push(bytes[i]);
            i += 1;
        }
    }
    use std::os::unix::ffi::OsStringExt;
    Some(std::ffi::OsString::from_vec(decoded).into())
}

/// An error and its sources on one line, `: `-separated, each said once.
pub(crate) fn with_causes(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let part = s.to_string();
        // Backends often repeat their source's text in their own.
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = s.source();
    }
    text
}

/// A `mirror_error` message as one human line.
pub(crate) fn mirror_error_line(m: &MirrorError) -> String {
    let key = m.key.as_ref().map_or_else(String::new, |k| {
        let mut s = format!(
            " for {}/{}",
            k.project_key.as_deref().unwrap_or("?"),
            k.session_id.as_deref().unwrap_or("?")
        );
        if let Some(sub) = &k.subpath {
            s.push('/');
            s.push_str(sub);
        }
        s
    });
    format!(
        "session store: a mirrored batch was dropped{key}: {}",
        m.error.as_deref().unwrap_or("the append failed")
    )
}

/// The mirror's counts of a shutdown report, when a store was configured.
pub(crate) fn mirror_counts(report: &SessionReport) -> Option<String> {
    let persisted = report.mirror_persisted?;
    let unpersisted = report.mirror_unpersisted.unwrap_or(0);
    Some(format!(
        "session store: {persisted} transcript entries persisted, {unpersisted} not"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_urls_name_their_folder_decoded() {
        assert_eq!(file_folder("file:///a/b%20c"), Some("/a/b c".into()));
        assert_eq!(file_folder("FILE://localhost/x"), Some("/x".into()));
        assert_eq!(file_folder("file://relative"), None);
        assert_eq!(file_folder("postgres://h/db"), None);
        assert_eq!(file_folder("file:///bad%2"), None);
    }

    #[test]
    fn overflow_policies_parse_and_others_name_the_allowed_values() {
        assert_eq!(parse_overflow("pause"), Ok(StoreOverflow::Pause));
        assert_eq!(parse_overflow("drop-oldest"), Ok(StoreOverflow::DropOldest));
        assert_eq!(parse_overflow("spill"), Ok(StoreOverflow::spill()));
        assert_eq!(
            parse_overflow("spill=/x y"),
            Ok(StoreOverflow::Spill {
                dir: Some("/x y".into())
            })
        );
        for bad in ["", "drop", "spill=", "pause=/x"] {
            let e = parse_overflow(bad).unwrap_err();
            assert!(
                e.contains("drop-oldest, pause, spill, spill=DIR"),
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn an_address_hides_the_login_and_the_path() {
        assert_eq!(
            address("postgres://u:secret@h:5432/db?x=1"),
            "postgres://h:5432"
        );
        assert_eq!(address("redis://:pw@h"), "redis://h");
        assert_eq!(address("memory:"), "memory");
    }
}
