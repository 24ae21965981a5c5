//! Helpers for the `telemetry_*` tests: reading spans and metric points
//! back from the in-memory exporters.
#![allow(dead_code, unreachable_pub, clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

mod in_memory;

pub use in_memory::{InMemory, in_memory};
use opentelemetry::{KeyValue, Value};
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData, ResourceMetrics};
use opentelemetry_sdk::trace::SpanData;

/// A span attribute's value.
pub fn attr(span: &SpanData, key: &str) -> Option<Value> {
    span.attributes
        .iter()
        .find(|kv| kv.key.as_str() == key)
        .map(|kv| kv.value.clone())
}

/// A string span attribute.
pub fn attr_str(span: &SpanData, key: &str) -> Option<String> {
    attr(span, key).map(|v| v.as_str().into_owned())
}

/// Every ended span named `name`.
pub fn named(spans: &[SpanData], name: &str) -> Vec<SpanData> {
    spans.iter().filter(|s| s.name == name).cloned().collect()
}

fn matches(attrs: &mut dyn Iterator<Item = &KeyValue>, want: &[(&str, &str)]) -> bool {
    let attrs: Vec<&KeyValue> = attrs.collect();
    want.iter().all(|(k, v)| {
        attrs
            .iter()
            .any(|kv| kv.key.as_str() == *k && kv.value.as_str() == *v)
    }) && attrs.len() == want.len()
}

fn latest(mem: &InMemory) -> Option<ResourceMetrics> {
    mem.metrics().pop()
}

/// The cumulative value of the counter (or up-down counter) `name` for
/// exactly the attributes `want`, from the latest export.
pub fn sum(mem: &InMemory, name: &str, want: &[(&str, &str)]) -> Option<i64> {
    let rm = latest(mem)?;
    let metric = rm
        .scope_metrics()
        .flat_map(|s| s.metrics())
        .find(|m| m.name() == name)?;
    match metric.data() {
        AggregatedMetrics::U64(MetricData::Sum(s)) => s
            .data_points()
            .find(|p| matches(&mut p.attributes(), want))
            .map(|p| p.value() as i64),
        AggregatedMetrics::I64(MetricData::Sum(s)) => s
            .data_points()
            .find(|p| matches(&mut p.attributes(), want))
            .map(|p| p.value()),
        other => panic!("{name} is not a sum: {other:?}"),
    }
}

/// (count, sum) of the histogram `name` for exactly the attributes `want`.
pub fn histogram(mem: &InMemory, name: &str, want: &[(&str, &str)]) -> Option<(u64, f64)> {
    let rm = latest(mem)?;
    let metric = rm
        .scope_metrics()
        .flat_map(|s| s.metrics())
        .find(|m| m.name() == name)?;
    match metric.data() {
        AggregatedMetrics::F64(MetricData::Histogram(h)) => h
            .data_points()
            .find(|p| matches(&mut p.attributes(), want))
            .map(|p| (p.count(), p.sum())),
        other => panic!("{name} is not an f64 histogram: {other:?}"),
    }
}

/// The unit of the metric `name`, from the latest export.
pub fn unit(mem: &InMemory, name: &str) -> Option<String> {
    let rm = latest(mem)?;
    rm.scope_metrics()
        .flat_map(|s| s.metrics())
        .find(|m| m.name() == name)
        .map(|m| m.unit().to_owned())
}

/// Waits (polling the exporters, bounded by `within`) until `check` holds.
pub async fn eventually(within: Duration, mut check: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + within;
    loop {
        if check() {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Reads the current turn up to its result, bounded.
pub async fn finish_turn(client: &claude_agent::client::Client) {
    use futures::StreamExt;
    let mut turn = client.receive_response();
    while let Some(m) = tokio::time::timeout(Duration::from_secs(10), turn.next())
        .await
        .expect("turn hung")
    {
        m.unwrap();
    }
}
