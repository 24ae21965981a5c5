//! The metric instruments and their names.

use opentelemetry::metrics::{Counter, Gauge, Histogram, Meter, UpDownCounter};

/// Sessions connected and not yet ended, by `tenant`.
pub const SESSIONS_ACTIVE: &str = "claude_agent.sessions.active";
/// Lines exchanged with the CLI, by `direction` (`in` = stdout, `out` = stdin).
pub const FRAMES: &str = "claude_agent.frames";
/// Bytes exchanged with the CLI, by `direction`.
pub const BYTES: &str = "claude_agent.bytes";
/// Control request round trips in seconds, by `subtype` and `direction`.
pub const CONTROL_DURATION: &str = "claude_agent.control.duration";
/// Shutdowns that had to signal the CLI, by `level` (`term`, `kill`).
pub const ESCALATIONS: &str = "claude_agent.escalations";
/// Sessions restarted by a host, by `tenant`.
pub const RESTARTS: &str = "claude_agent.restarts";
/// Lines or messages that could not be parsed, by `kind`.
pub const PARSE_DIAGNOSTICS: &str = "claude_agent.parse.diagnostics";
/// Time a host's session waited for admission, in seconds, by `tenant`.
pub const ADMISSION_WAIT: &str = "claude_agent.host.admission.wait";
/// Sessions waiting for admission in a host, by `tenant`.
pub const QUEUE_DEPTH: &str = "claude_agent.host.queue.depth";

/// Bucket bounds in seconds for latencies from a millisecond to minutes
/// (the SDK's default buckets are tuned for milliseconds).
const SECONDS_BUCKETS: [f64; 14] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 60.0,
];

/// Every instrument this crate records to.
pub(crate) struct Instruments {
    pub(crate) sessions_active: UpDownCounter<i64>,
    pub(crate) frames: Counter<u64>,
    pub(crate) bytes: Counter<u64>,
    pub(crate) control_duration: Histogram<f64>,
    pub(crate) escalations: Counter<u64>,
    pub(crate) restarts: Counter<u64>,
    pub(crate) parse_diagnostics: Counter<u64>,
    pub(crate) admission_wait: Histogram<f64>,
    pub(crate) queue_depth: Gauge<u64>,
}

impl Instruments {
    pub(crate) fn new(meter: &Meter) -> Self {
        Self {
            sessions_active: meter
                .i64_up_down_counter(SESSIONS_ACTIVE)
                .with_unit("{session}")
                .with_description("Sessions connected and not yet ended")
                .build(),
            frames: meter
                .u64_counter(FRAMES)
                .with_unit("{frame}")
                .with_description("NDJSON lines exchanged with the CLI")
                .build(),
            bytes: meter
                .u64_counter(BYTES)
                .with_unit("By")
                .with_description("Bytes exchanged with the CLI")
                .build(),
            control_duration: meter
                .f64_histogram(CONTROL_DURATION)
                .with_unit("s")
                .with_description("Control request round trips")
                .with_boundaries(SECONDS_BUCKETS.to_vec())
                .build(),
            escalations: meter
                .u64_counter(ESCALATIONS)
                .with_unit("{shutdown}")
                .with_description("Shutdowns that had to signal the CLI")
                .build(),
            restarts: meter
                .u64_counter(RESTARTS)
                .with_unit("{restart}")
                .with_description("Sessions restarted by a host")
                .build(),
            parse_diagnostics: meter
                .u64_counter(PARSE_DIAGNOSTICS)
                .with_unit("{diagnostic}")
                .with_description("Lines or messages that could not be parsed")
                .build(),
            admission_wait: meter
                .f64_histogram(ADMISSION_WAIT)
                .with_unit("s")
                .with_description("Time a session waited for admission")
                .with_boundaries(SECONDS_BUCKETS.to_vec())
                .build(),
            queue_depth: meter
                .u64_gauge(QUEUE_DEPTH)
                .with_unit("{session}")
                .with_description("Sessions waiting for admission")
                .build(),
        }
    }
}
