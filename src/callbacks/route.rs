//! What every route of the router shares: the reply types, the request
//! subtypes, the one-pass decode and the error reply that observers see.

use claude_agent_actors::{HandlerError, InboundRequest};
use futures::future::BoxFuture;
use serde_json::Value;

use super::Decision;
use super::decision::Observers;
use crate::protocol::de::Wire;
use crate::protocol::parse_json_variant;

/// A routed request's answer.
pub(super) type Reply = BoxFuture<'static, Result<Value, HandlerError>>;

/// The routed request's future, or the error to reply with at once.
pub(super) type Routed = Result<Reply, String>;

pub(super) const CAN_USE_TOOL: &str = "can_use_tool";
pub(super) const HOOK_CALLBACK: &str = "hook_callback";
pub(super) const MCP_MESSAGE: &str = "mcp_message";

/// Decodes the request's JSON text, as received, straight into the typed
/// payload of its (scanned) subtype with the protocol's own parser (one
/// pass, no intermediate `Value`; errors name the offending field). Only
/// that payload's decoder is compiled here, not every request type's.
pub(super) fn decode<W: Wire>(request: &InboundRequest) -> Result<W, String> {
    parse_json_variant(request.request.json(), "subtype", &request.subtype)
        .map_err(|e| format!("cannot decode {} request: {e}", request.subtype))
}

/// The error reply to a request this build cannot answer: nothing it
/// registers makes the CLI send one, so a CLI that does is answered with
/// what is missing.
#[cfg(not(all(feature = "hooks", feature = "mcp")))]
pub(super) fn needs_feature(subtype: &str, feature: &str) -> String {
    format!("{subtype} needs claude-agent's `{feature}` feature, which this build does not have")
}

/// Tells the observers and makes the error reply.
pub(super) fn failed(observers: &Observers, subtype: &str, error: String) -> HandlerError {
    observers.notify(&Decision::Failed {
        subtype: subtype.to_owned(),
        error: error.clone(),
    });
    HandlerError::new(error)
}
