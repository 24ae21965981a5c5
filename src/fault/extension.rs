//! The plan as an extension of each connect: `configure` puts the pumps
//! between the runtime and the CLI and wraps the callbacks; `post_stop`
//! writes what fired into the report and the transcript.

use std::sync::{Arc, Mutex};

use claude_agent_actors::SessionConfig;
use claude_agent_actors::channel::{ChannelError, Connection, Transport};
use futures::future::BoxFuture;

use super::FaultPlan;
use super::pipes::{EngineSlot, FaultTransport};
use super::report::REPORT_KEY;
use super::wrap::{FaultInbound, FaultStore};
use crate::Result;
use crate::extensions::transcript::TranscriptExtension;
use crate::extensions::{Extension, Stopped, lock};
use crate::store::SessionStore;

/// One connect's plan.
pub(crate) struct FaultExtension {
    plan: FaultPlan,
    slot: EngineSlot,
    transcript: Option<Arc<TranscriptExtension>>,
}

impl FaultExtension {
    pub(crate) fn new(plan: FaultPlan, transcript: Option<Arc<TranscriptExtension>>) -> Self {
        Self {
            plan,
            slot: Arc::new(Mutex::new(None)),
            transcript,
        }
    }

    /// `store` with the plan's store faults.
    pub(crate) fn wrap_store(&self, store: Arc<dyn SessionStore>) -> Arc<dyn SessionStore> {
        Arc::new(FaultStore {
            inner: store,
            slot: self.slot.clone(),
        })
    }
}

/// What `configure` leaves in place of the transport it wraps for the
/// moment of the swap; never connected.
struct Taken;

impl Transport for Taken {
    fn kind(&self) -> &'static str {
        "taken"
    }

    fn connect(self: Box<Self>) -> BoxFuture<'static, Result<Connection, ChannelError>> {
        Box::pin(async { Err(ChannelError::Connect("the transport was taken".into())) })
    }
}

impl Extension for FaultExtension {
    fn name(&self) -> &str {
        REPORT_KEY
    }

    fn configure(&self, mut config: SessionConfig) -> Result<SessionConfig> {
        let inner = std::mem::replace(&mut config.transport, Box::new(Taken));
        config.transport = Box::new(FaultTransport {
            inner,
            faults: self.plan.faults().to_vec(),
            seed: self.plan.seed_value(),
            slot: self.slot.clone(),
        });
        config.inbound = Arc::new(FaultInbound {
            inner: config.inbound.clone(),
            slot: self.slot.clone(),
        });
        Ok(config)
    }

    async fn post_stop(&self, stopped: &mut Stopped<'_>) {
        let engine = lock(&self.slot).clone();
        let Some(engine) = engine else {
            return;
        };
        let report = engine.report();
        if let Some(recorder) = self.transcript.as_ref().and_then(|t| t.recorder()) {
            for fault in &report.injected {
                if let Ok(v) = serde_json::to_value(fault) {
                    recorder.record_fault(v);
                }
            }
        }
        if let Ok(v) = serde_json::to_value(&report) {
            stopped.report(v);
        }
    }
}
