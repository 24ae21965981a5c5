//! The host's side of the CLI's control requests: permission callbacks
//! ([`CanUseTool`]), MCP elicitations ([`elicitation::OnElicitation`]) and
//! user dialogs ([`user_dialog`]), and, with the features of the same
//! names, hooks (`hooks`: `Hooks`) and in-process MCP servers (`mcp`:
//! `mcp::SdkMcpServer`). [`Callbacks`] gathers them; the session runtime
//! calls it as its [`InboundHandler`](crate::runtime::InboundHandler).
//!
//! ```
//! use claude_agent::callbacks::{AllowList, Callbacks};
//!
//! let callbacks = Callbacks::new().with_can_use_tool(AllowList::new(["Read"], ["Bash"]));
//! assert!(callbacks.can_use_tool.is_some());
//! ```
#![cfg_attr(
    all(feature = "hooks", feature = "mcp"),
    doc = r#"
With `hooks` and `mcp`:

```
use claude_agent::callbacks::mcp::{SdkMcpServer, Tool, ToolResult};
use claude_agent::callbacks::{AllowList, Callbacks, CallbackError, HookContext,
    HookEventKind, HookMatcher, Hooks};
use claude_agent::protocol::{HookInput, HookOutput};

let audit = |input: HookInput, _tool_use_id: Option<String>, _ctx: HookContext| async move {
    println!("{} is about to run", input.hook_event_name());
    Ok::<_, CallbackError>(HookOutput::default())
};
let callbacks = Callbacks::new()
    .with_can_use_tool(AllowList::new(["mcp__calc__add"], ["Bash"]))
    .with_hooks(Hooks::new().on(HookEventKind::PreToolUse, HookMatcher::any().hook(audit)))
    .with_mcp_server(SdkMcpServer::new("calc", "1.0.0").tool(Tool::new(
        "add",
        "Add two numbers",
        serde_json::json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}}),
        |args: serde_json::Value, _ctx| async move {
            let sum = args["a"].as_f64().unwrap_or(0.0) + args["b"].as_f64().unwrap_or(0.0);
            Ok(ToolResult::text(sum.to_string()))
        },
    )));
assert_eq!(callbacks.sdk_server_names(), ["calc"]);
assert!(callbacks.initialize_hooks_json().is_some());
```
"#
)]

mod decision;
pub mod elicitation;
mod error;
#[cfg(feature = "hooks")]
pub mod hooks;
pub(crate) mod live_servers;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod permission;
mod route;
mod router;
pub(crate) mod shadowed;
pub mod user_dialog;

pub use decision::{Decision, DecisionObserver};
pub use error::CallbackError;
#[cfg(feature = "hooks")]
pub use hooks::{
    HookCallback, HookContext, HookEventKind, HookMatcher, Hooks, OnFailure, pre_tool_use_decision,
};
pub use permission::{
    AllowList, CanUseTool, PermissionContext, allow, allow_and_update, allow_with_input, deny,
    deny_and_interrupt,
};
pub use router::Callbacks;
pub use shadowed::{SHADOWED_TARGET, can_use_tool_shadowed};
