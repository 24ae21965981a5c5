//! One session's armed plan: counts the frames the pumps see, decides which
//! faults fire, keeps the record and the request/reply tally. The pumps
//! (`pipes.rs`), the callback wrapper and the store wrapper ask it what to
//! do; it never waits, and its lock is never held across an await.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use super::action::{Action, Target};
use super::peek::Peek;
use super::point::{Point, When};
use super::record::{InjectedFault, RequestTally};
use super::report::FaultReport;
use super::signal::Process;
use super::spec::Fault;

/// A step the stdout pump takes around a line.
#[derive(Debug)]
pub(crate) enum Step {
    /// Hold stdout this long.
    Stall(Duration),
    /// Close the stdout pipe.
    Close,
    /// Write this line.
    Inject(Vec<u8>),
}

/// What the stdout pump does with one line.
#[derive(Debug, Default)]
pub(crate) struct LinePlan {
    pub(crate) before: Vec<Step>,
    /// The line to deliver instead of the CLI's (without newline).
    pub(crate) replace: Option<Vec<u8>>,
    pub(crate) after: Vec<Step>,
}

/// What the stdin pump does with one line the runtime wrote.
#[derive(Debug)]
pub(crate) enum Reply {
    Pass,
    Drop,
    Delay(Duration),
}

/// What a session-store append meets.
#[derive(Debug, Default)]
pub(crate) struct StoreGate {
    pub(crate) stall: Option<Duration>,
    pub(crate) fail: Option<String>,
}

#[derive(Debug)]
struct State {
    /// Per fault: frames of its kind seen, whether it fired.
    seen: Vec<u64>,
    fired: Vec<bool>,
    rng: u64,
    frames: u64,
    injected: Vec<InjectedFault>,
    requests: Vec<RequestTally>,
    by_id: HashMap<String, usize>,
    replies: HashMap<String, Action>,
    callbacks: HashMap<String, Action>,
    store_fail: Option<String>,
    store_stalls: Vec<Duration>,
    stdin_eof: bool,
    stdin_hold_until: Option<Instant>,
    stdout_hold_until: Option<Instant>,
}

/// One session's armed plan.
#[derive(Debug)]
pub(crate) struct Engine {
    faults: Vec<Fault>,
    seed: u64,
    started: Instant,
    process: std::sync::Arc<Process>,
    state: Mutex<State>,
    /// Cancelled by `close-stdin`: the stdin pump closes the CLI's stdin.
    pub(crate) close_stdin: CancellationToken,
    /// Cancelled by `close-stdout` at stdin EOF: the stdout pump closes.
    pub(crate) close_stdout: CancellationToken,
}

/// splitmix64: a small, well-mixed generator; the seed fixes the sequence.
fn next_random(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Engine {
    pub(crate) fn new(faults: Vec<Fault>, seed: u64, process: Process) -> Self {
        let n = faults.len();
        Self {
            faults,
            seed,
            started: Instant::now(),
            process: std::sync::Arc::new(process),
            state: Mutex::new(State {
                seen: vec![0; n],
                fired: vec![false; n],
                rng: seed,
                frames: 0,
                injected: Vec::new(),
                requests: Vec::new(),
                by_id: HashMap::new(),
                replies: HashMap::new(),
                callbacks: HashMap::new(),
                store_fail: None,
                store_stalls: Vec::new(),
                stdin_eof: false,
                stdin_hold_until: None,
                stdout_hold_until: None,
            }),
            close_stdin: CancellationToken::new(),
            close_stdout: CancellationToken::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        crate::extensions::lock(&self.state)
    }

    fn record(&self, s: &mut State, i: usize, frame: Option<u64>, request_id: Option<String>) {
        let fault = &self.faults[i];
        s.injected.push(InjectedFault {
            fault: fault.to_string(),
            action: fault.action.name().to_owned(),
            at_ms: u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX),
            frame,
            request_id,
            signal: None,
            target: None,
            applied: true,
            note: None,
        });
    }

    /// Marks the requests still unanswered as faulted after their arrival.
    fn disrupts(s: &mut State) {
        for r in s.requests.iter_mut().filter(|r| r.replies == 0) {
            r.faulted_after = true;
        }
    }

    /// Takes the action of fault `i`, which fired at `frame` (if any) on
    /// request `request_id` (if any); steps for the stdout pump are pushed
    /// to `steps`, a line rewrite goes to `replace`.
    fn act(
        &self,
        s: &mut State,
        i: usize,
        frame: Option<(u64, &[u8])>,
        request_id: Option<&str>,
        steps: &mut Vec<Step>,
        replace: &mut Option<Vec<u8>>,
    ) {
        let action = self.faults[i].action.clone();
        self.record(s, i, frame.map(|f| f.0), request_id.map(str::to_owned));
        let note = |s: &mut State, applied: bool, note: String| {
            if let Some(r) = s.injected.last_mut() {
                r.applied = applied;
                r.note = Some(note);
            }
        };
        match action {
            Action::Signal { signal, target } => {
                self.send(s, target, signal);
                Self::disrupts(s);
            }
            Action::Stop { resume_after } => {
                self.send(s, Target::Group, rustix::process::Signal::STOP.as_raw());
                Self::disrupts(s);
                if let Some(after) = resume_after {
                    let process = self.process.clone();
                    // Bounded by `after`; the CLI may be gone by then, and
                    // the signal is then not sent (see `Process::signal`).
                    crate::task::spawn(async move {
                        tokio::time::sleep(after).await;
                        let cont = rustix::process::Signal::CONT.as_raw();
                        let _ = process.signal(Target::Group, cont);
                    });
                }
            }
            Action::Continue => self.send(s, Target::Group, rustix::process::Signal::CONT.as_raw()),
            Action::StallStdout(d) => steps.push(Step::Stall(d)),
            Action::StallStdin(d) => {
                let until = Instant::now() + d;
                s.stdin_hold_until = Some(s.stdin_hold_until.map_or(until, |u| u.max(until)));
            }
            Action::CloseStdout => {
                Self::disrupts(s);
                steps.push(Step::Close);
                self.close_stdout.cancel();
            }
            Action::CloseStdin => {
                Self::disrupts(s);
                self.close_stdin.cancel();
            }
            Action::DelayReply(_) | Action::DropReply => {
                if let Some(id) = request_id {
                    s.replies.insert(id.to_owned(), action);
                    note(s, true, format!("armed on the reply to request {id}"));
                }
            }
            Action::HangCallback | Action::PanicCallback => {
                if let Some(id) = request_id {
                    if matches!(action, Action::HangCallback) {
                        if let Some(&k) = s.by_id.get(id) {
                            s.requests[k].faulted_after = true;
                        }
                    }
                    s.callbacks.insert(id.to_owned(), action);
                    note(s, true, format!("armed on the callback for request {id}"));
                }
            }
            Action::Corrupt => {
                if let Some((_, line)) = frame {
                    // Same length, never JSON: the runtime skips it.
                    let mut bad = line.to_vec();
                    if let Some(b) = bad.first_mut() {
                        *b = b'#';
                    }
                    *replace = Some(bad);
                }
            }
            Action::Truncate(n) => {
                if let Some((_, line)) = frame {
                    let keep = n.unwrap_or(line.len() / 2).min(line.len());
                    *replace = Some(line[..keep].to_vec());
                    note(s, true, format!("cut from {} to {keep} bytes", line.len()));
                }
            }
            Action::Inject(text) => steps.push(Step::Inject(text.into_bytes())),
            Action::StallStore(d) => s.store_stalls.push(d),
            Action::FailStore => {
                s.store_fail = Some(self.faults[i].to_string());
            }
        }
    }

    /// Sends a signal now and records how that went on the last record.
    fn send(&self, s: &mut State, target: Target, signal: i32) {
        let result = self.process.signal(target, signal);
        if let Some(r) = s.injected.last_mut() {
            r.signal = Some(signal);
            r.target = Some(
                match target {
                    Target::Group => "group",
                    Target::Leader => "leader",
                }
                .to_owned(),
            );
            if let Err(why) = result {
                r.applied = false;
                r.note = Some(why);
            }
        }
    }

    /// One complete stdout line (without its newline): what to do around it.
    pub(crate) fn on_stdout_line(&self, line: &[u8]) -> LinePlan {
        let peek = Peek::of(line);
        let mut s = self.lock();
        s.frames += 1;
        let frame = s.frames;
        let (kind, subtype) = (peek.kind(), peek.subtype());
        match kind {
            "control_request" => {
                if let Some(id) = peek.request_id() {
                    let k = s.requests.len();
                    s.requests.push(RequestTally {
                        request_id: id.to_owned(),
                        subtype: subtype.unwrap_or("").to_owned(),
                        replies: 0,
                        cancelled: false,
                        faulted_after: false,
                    });
                    s.by_id.insert(id.to_owned(), k);
                }
            }
            "control_cancel_request" => {
                if let Some(&k) = peek.request_id().and_then(|id| s.by_id.get(id)) {
                    s.requests[k].cancelled = true;
                }
            }
            _ => {}
        }
        let mut plan = LinePlan::default();
        for i in 0..self.faults.len() {
            let point = &self.faults[i].point;
            let Some(want) = point.frame_kind() else {
                continue;
            };
            if s.fired[i] && matches!(point, Point::Frame { .. }) || !want.matches(kind, subtype) {
                continue;
            }
            s.seen[i] += 1;
            let fires = match point {
                Point::Frame { n, .. } => s.seen[i] == *n,
                Point::Random { percent, .. } => {
                    next_random(&mut s.rng) % 100 < u64::from(*percent)
                }
                _ => false,
            };
            if !fires {
                continue;
            }
            s.fired[i] = true;
            let steps = match point.when() {
                When::Before => &mut plan.before,
                When::After => &mut plan.after,
            };
            self.act(
                &mut s,
                i,
                Some((frame, line)),
                peek.request_id(),
                steps,
                &mut plan.replace,
            );
        }
        plan
    }

    /// One line the runtime wrote to the CLI's stdin: when it may go (a
    /// stall holds it), and what happens to a reply.
    pub(crate) fn on_stdin_line(&self, line: &[u8]) -> (Option<Instant>, Reply) {
        let peek = Peek::of(line);
        let mut s = self.lock();
        let hold = s.stdin_hold_until.filter(|u| *u > Instant::now());
        let mut reply = Reply::Pass;
        if peek.kind() == "control_response" {
            if let Some(id) = peek.response_request_id() {
                if let Some(&k) = s.by_id.get(id) {
                    s.requests[k].replies += 1;
                }
                match s.replies.remove(id) {
                    Some(Action::DropReply) => reply = Reply::Drop,
                    Some(Action::DelayReply(d)) => reply = Reply::Delay(d),
                    _ => {}
                }
            }
        }
        (hold, reply)
    }

    /// The runtime closed the CLI's stdin: the `stdin-eof` faults fire.
    /// Returns how long to hold the EOF (a `stall-stdin` there).
    pub(crate) fn on_stdin_eof(&self) -> Option<Instant> {
        let mut s = self.lock();
        s.stdin_eof = true;
        let mut steps = Vec::new();
        let mut replace = None;
        for i in 0..self.faults.len() {
            if self.faults[i].point == Point::StdinEof && !s.fired[i] {
                s.fired[i] = true;
                self.act(&mut s, i, None, None, &mut steps, &mut replace);
            }
        }
        // A stall-stdout there holds stdout from now on, as the pump's step.
        for step in steps {
            if let Step::Stall(d) = step {
                let until = Instant::now() + d;
                s.stdout_hold_until = Some(s.stdout_hold_until.map_or(until, |u| u.max(until)));
            }
        }
        s.stdin_hold_until.filter(|u| *u > Instant::now())
    }

    /// A stall of stdout decided outside the stdout pump (at stdin EOF).
    pub(crate) fn stdout_hold(&self) -> Option<Instant> {
        self.lock()
            .stdout_hold_until
            .filter(|u| *u > Instant::now())
    }

    /// A session-store append is about to run: the `mid-flush` faults fire
    /// once stdin is closed; returns the stall and failure it meets.
    pub(crate) fn store_gate(&self) -> StoreGate {
        let mut s = self.lock();
        if s.stdin_eof {
            let mut steps = Vec::new();
            let mut replace = None;
            for i in 0..self.faults.len() {
                if self.faults[i].point == Point::MidFlush && !s.fired[i] {
                    s.fired[i] = true;
                    self.act(&mut s, i, None, None, &mut steps, &mut replace);
                }
            }
        }
        let stall = (!s.store_stalls.is_empty()).then(|| s.store_stalls.remove(0));
        StoreGate {
            stall,
            fail: s.store_fail.clone(),
        }
    }

    /// The fault armed on the callback for `request_id`, taken.
    pub(crate) fn callback_fault(&self, request_id: &str) -> Option<Action> {
        self.lock().callbacks.remove(request_id)
    }

    /// The report part: the plan, what fired, the tally.
    pub(crate) fn report(&self) -> FaultReport {
        let s = self.lock();
        FaultReport {
            plan: self.faults.iter().map(ToString::to_string).collect(),
            seed: self.seed,
            pid: self.process.pid(),
            pgid: self.process.pgid(),
            injected: s.injected.clone(),
            requests: s.requests.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn frames_fired(seed: u64) -> Vec<Option<u64>> {
        let fault: Fault = "corrupt@random:stream_event:30".parse().unwrap();
        let engine = Engine::new(vec![fault], seed, Process::new(None, None));
        for _ in 0..200 {
            engine.on_stdout_line(br#"{"type":"stream_event","event":{}}"#);
            engine.on_stdout_line(br#"{"type":"assistant","message":{}}"#);
        }
        engine.report().injected.iter().map(|f| f.frame).collect()
    }

    #[test]
    fn random_points_fire_on_the_same_frames_for_the_same_seed_only() {
        let (a, b, other) = (frames_fired(7), frames_fired(7), frames_fired(8));
        assert_eq!(a, b);
        assert_ne!(a, other);
        // About 30 in 100 of the 200 stream events; never an assistant frame.
        assert!((30..=90).contains(&a.len()), "{}", a.len());
        assert!(a.iter().all(|f| f.unwrap() % 2 == 1));
    }

    #[test]
    fn the_nth_frame_fires_once_and_a_signal_without_a_process_is_recorded_as_not_sent() {
        let fault: Fault = "kill@assistant:2".parse().unwrap();
        let engine = Engine::new(vec![fault], 0, Process::new(None, None));
        for _ in 0..4 {
            engine.on_stdout_line(br#"{"type":"assistant"}"#);
        }
        let report = engine.report();
        assert_eq!(report.injected.len(), 1);
        let kill = &report.injected[0];
        assert_eq!((kill.frame, kill.applied), (Some(2), false));
        assert!(kill.note.as_deref().unwrap().contains("no local process"));
    }
}
