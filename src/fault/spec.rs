//! One fault, `ACTION@POINT`, and its parser.
//!
//! ```text
//! SPEC   = ACTION "@" POINT
//! POINT  = ["before:"] KIND [":" N]          the Nth frame of KIND (N from 1, default 1)
//!        | ["before:"] "random:" KIND ":" P  each frame of KIND with chance P in 100
//!        | "stdin-eof" | "mid-flush"
//! KIND   = frame | init | system | assistant | user | result | stream_event
//!        | control_request[.SUBTYPE] | hook_callback | mcp_message | control_response
//! ACTION = kill[:SIG] | kill-leader[:SIG] | stop[:MS] | cont
//!        | stall-stdout:MS | stall-stdin:MS | close-stdout | close-stdin
//!        | delay-reply:MS | drop-reply | hang-callback | panic-callback
//!        | corrupt | truncate[:BYTES] | inject[:TEXT] | stall-store:MS | fail-store
//! ```

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use super::action::{self, Action, DEFAULT_INJECTED_LINE, KILL, Target};
use super::point::{FrameKind, Point, When};

/// One fault: what to do, and where.
///
/// ```
/// use claude_agent::fault::{Action, Fault};
///
/// let fault: Fault = "stall-stdout:3000@assistant:1".parse()?;
/// assert_eq!(fault.action, Action::StallStdout(std::time::Duration::from_secs(3)));
/// assert_eq!(fault.to_string(), "stall-stdout:3000@assistant:1");
/// assert!("explode@assistant:1".parse::<Fault>().is_err());
/// # Ok::<(), claude_agent::fault::FaultSpecError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    /// What it does.
    pub action: Action,
    /// Where it fires.
    pub point: Point,
}

/// A fault spec that does not parse: which part is wrong, and why. Its
/// message ends with the syntax, the points and the actions.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad fault spec '{spec}': '{part}' {problem}\n{}", SYNTAX)]
pub struct FaultSpecError {
    /// The whole spec.
    pub spec: String,
    /// The part that is wrong.
    pub part: String,
    /// What is wrong with it.
    pub problem: String,
}

/// The syntax, the points and the actions, for error messages and help.
pub const SYNTAX: &str = "\
syntax: ACTION@POINT
points: [before:]KIND[:N] (the Nth frame of KIND, default 1; the fault acts after it unless before:), \
[before:]random:KIND:PERCENT (each frame of KIND by chance, from the seed), stdin-eof, mid-flush; \
KIND: frame, init, system, assistant, user, result, stream_event, control_request[.SUBTYPE], \
hook_callback, mcp_message, control_response
actions: kill[:SIG], kill-leader[:SIG], stop[:MS], cont, stall-stdout:MS, stall-stdin:MS, \
close-stdout, close-stdin, delay-reply:MS, drop-reply, hang-callback, panic-callback, corrupt, \
truncate[:BYTES], inject[:TEXT], stall-store:MS, fail-store";

impl FromStr for Fault {
    type Err = FaultSpecError;

    fn from_str(spec: &str) -> Result<Self, FaultSpecError> {
        let bad = |part: &str, problem: &str| FaultSpecError {
            spec: spec.to_owned(),
            part: part.to_owned(),
            problem: problem.to_owned(),
        };
        // The last `@`: an injected line may contain one.
        let Some((action_text, point_text)) = spec.rsplit_once('@') else {
            return Err(bad(spec, "has no '@' between the action and the point"));
        };
        let action = parse_action(action_text).map_err(|p| bad(action_text, &p))?;
        let point = parse_point(point_text).map_err(|p| bad(point_text, &p))?;
        check_pair(&action, &point).map_err(|p| bad(spec, &p))?;
        Ok(Fault { action, point })
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}@{}", self.action, self.point)
    }
}

fn millis(name: &str, arg: Option<&str>) -> Result<Duration, String> {
    let arg = arg.ok_or_else(|| format!("needs a duration in milliseconds ({name}:MS)"))?;
    arg.parse::<u64>()
        .map(Duration::from_millis)
        .map_err(|_| format!("has '{arg}' where milliseconds belong ({name}:MS)"))
}

fn parse_action(text: &str) -> Result<Action, String> {
    let (name, arg) = match text.split_once(':') {
        Some((n, a)) => (n, Some(a)),
        None => (text, None),
    };
    let no_arg = |action: Action| match arg {
        Some(_) => Err(format!("takes no argument ({name})")),
        None => Ok(action),
    };
    let signal = |target| {
        let signal = match arg {
            None => KILL,
            Some(s) => action::parse_signal(s).ok_or_else(|| {
                format!(
                    "names no known signal '{s}' (one of {}, or its number)",
                    action::signal_names()
                )
            })?,
        };
        Ok(Action::Signal { signal, target })
    };
    match name {
        "kill" => signal(Target::Group),
        "kill-leader" => signal(Target::Leader),
        "stop" => Ok(Action::Stop {
            resume_after: arg.map(|_| millis(name, arg)).transpose()?,
        }),
        "cont" => no_arg(Action::Continue),
        "stall-stdout" => Ok(Action::StallStdout(millis(name, arg)?)),
        "stall-stdin" => Ok(Action::StallStdin(millis(name, arg)?)),
        "close-stdout" => no_arg(Action::CloseStdout),
        "close-stdin" => no_arg(Action::CloseStdin),
        "delay-reply" => Ok(Action::DelayReply(millis(name, arg)?)),
        "drop-reply" => no_arg(Action::DropReply),
        "hang-callback" => no_arg(Action::HangCallback),
        "panic-callback" => no_arg(Action::PanicCallback),
        "corrupt" => no_arg(Action::Corrupt),
        "truncate" => match arg {
            None => Ok(Action::Truncate(None)),
            Some(n) => n
                .parse::<usize>()
                .map(|n| Action::Truncate(Some(n)))
                .map_err(|_| format!("has '{n}' where a byte count belongs (truncate:BYTES)")),
        },
        "inject" => match arg {
            Some(line) if line.contains('\n') => Err("is a line: it cannot hold a newline".into()),
            Some(line) => Ok(Action::Inject(line.to_owned())),
            None => Ok(Action::Inject(DEFAULT_INJECTED_LINE.to_owned())),
        },
        "stall-store" => Ok(Action::StallStore(millis(name, arg)?)),
        "fail-store" => no_arg(Action::FailStore),
        _ => Err("is not an action".into()),
    }
}

fn parse_kind(text: &str) -> Result<FrameKind, String> {
    Ok(match text {
        "frame" => FrameKind::Any,
        "init" => FrameKind::Init,
        "system" => FrameKind::System,
        "assistant" => FrameKind::Assistant,
        "user" => FrameKind::User,
        "result" => FrameKind::Result,
        "stream_event" => FrameKind::StreamEvent,
        "control_request" => FrameKind::ControlRequest(None),
        "hook_callback" => FrameKind::ControlRequest(Some("hook_callback".into())),
        "mcp_message" => FrameKind::ControlRequest(Some("mcp_message".into())),
        "control_response" => FrameKind::ControlResponse,
        other => match other.strip_prefix("control_request.") {
            Some(sub) if !sub.is_empty() => FrameKind::ControlRequest(Some(sub.to_owned())),
            _ => return Err(format!("names no frame kind '{other}'")),
        },
    })
}

fn parse_point(text: &str) -> Result<Point, String> {
    match text {
        "stdin-eof" => return Ok(Point::StdinEof),
        "mid-flush" => return Ok(Point::MidFlush),
        _ => {}
    }
    let (when, rest) = match text.strip_prefix("before:") {
        Some(rest) => (When::Before, rest),
        None => (When::After, text.strip_prefix("after:").unwrap_or(text)),
    };
    if let Some(random) = rest.strip_prefix("random:") {
        let (kind, pct) = random
            .rsplit_once(':')
            .ok_or("needs a kind and a chance (random:KIND:PERCENT)")?;
        let percent = pct
            .parse::<u8>()
            .ok()
            .filter(|p| (1..=100).contains(p))
            .ok_or_else(|| format!("has '{pct}' where a chance of 1 to 100 belongs"))?;
        let kind = parse_kind(kind)?;
        return Ok(Point::Random {
            when,
            kind,
            percent,
        });
    }
    let (kind, n) = match rest.rsplit_once(':') {
        Some((kind, n)) => {
            let n = n
                .parse::<u64>()
                .ok()
                .filter(|n| *n >= 1)
                .ok_or_else(|| format!("has '{n}' where a count from 1 belongs"))?;
            (kind, n)
        }
        None => (rest, 1),
    };
    let kind = parse_kind(kind)?;
    Ok(Point::Frame { when, kind, n })
}

/// The combinations that mean nothing are refused.
fn check_pair(action: &Action, point: &Point) -> Result<(), String> {
    let at_request = point
        .frame_kind()
        .is_some_and(FrameKind::is_control_request);
    if action.needs_request() && !at_request {
        return Err(format!(
            "{} acts on the reply to a control request: its point must be \
             control_request[.SUBTYPE], hook_callback or mcp_message",
            action.name()
        ));
    }
    if action.needs_frame() && point.frame_kind().is_none() {
        return Err(format!(
            "{} rewrites stdout frames: its point must be a frame",
            action.name()
        ));
    }
    if *point == Point::MidFlush && !action.is_store() {
        return Err(
            "mid-flush happens after the CLI ended: only stall-store and fail-store act there"
                .into(),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_two_named_specs_parse_and_print_back() {
        for text in ["kill@control_request:1", "stall-stdout:3000@assistant:1"] {
            assert_eq!(text.parse::<Fault>().unwrap().to_string(), text);
        }
        let kill: Fault = "kill@control_request:1".parse().unwrap();
        assert_eq!(
            kill.action,
            Action::Signal {
                signal: KILL,
                target: Target::Group
            }
        );
    }

    #[test]
    fn signals_points_and_defaults_parse() {
        let f: Fault = "kill-leader:TERM@before:result".parse().unwrap();
        assert_eq!(f.to_string(), "kill-leader:TERM@before:result:1");
        let f: Fault = "kill:sigint@hook_callback:2".parse().unwrap();
        assert_eq!(f.to_string(), "kill:INT@hook_callback:2");
        let f: Fault = "corrupt@random:assistant:50".parse().unwrap();
        assert!(matches!(f.point, Point::Random { percent: 50, .. }));
        let f: Fault = "drop-reply@control_request.can_use_tool:1".parse().unwrap();
        assert_eq!(f.to_string(), "drop-reply@control_request.can_use_tool:1");
        let f: Fault = "inject:{\"a@b\":1}@init".parse().unwrap();
        assert_eq!(f.action, Action::Inject("{\"a@b\":1}".into()));
        assert_eq!(
            "fail-store@mid-flush".parse::<Fault>().unwrap().point,
            Point::MidFlush
        );
    }

    #[test]
    fn a_bad_spec_names_its_bad_part_and_lists_the_syntax() {
        let cases = [
            ("explode@assistant:1", "explode"),
            ("kill@assistnt:1", "assistnt:1"),
            ("kill@assistant:0", "assistant:0"),
            ("stall-stdout@assistant:1", "stall-stdout"),
            ("kill:WHAT@result", "kill:WHAT"),
            ("kill", "kill"),
            ("drop-reply@assistant:1", "drop-reply@assistant:1"),
            ("kill@mid-flush", "kill@mid-flush"),
        ];
        for (spec, part) in cases {
            let e = spec.parse::<Fault>().unwrap_err();
            assert_eq!(e.part, part, "{spec}");
            let text = e.to_string();
            assert!(text.contains("actions: kill[:SIG]"), "{text}");
            assert!(text.contains("points: "), "{text}");
        }
    }
}
