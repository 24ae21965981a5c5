//! Resources and prompts of an in-process MCP server, answered as JSON-RPC
//! the way the CLI asks for them: listed, read, filled in, and refused with
//! the right error codes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use claude_agent::callbacks::CallbackError;
use claude_agent::callbacks::mcp::{
    Prompt, PromptMessage, Resource, ResourceContent, SdkMcpServer,
};
use claude_agent::runtime::CancellationToken;
use std::collections::BTreeMap;

use serde_json::{Value, json};

fn server() -> SdkMcpServer {
    SdkMcpServer::new("docs", "1.0.0")
        .resource(
            Resource::text("docs://readme", "readme", "Hello.")
                .description("The readme")
                .mime_type("text/plain"),
        )
        .resource(Resource::new(
            "docs://logo",
            "logo",
            |_c: CancellationToken| async {
                Ok::<_, CallbackError>(ResourceContent::Blob("iVBORw0K".into()))
            },
        ))
        .resource(Resource::new(
            "docs://broken",
            "broken",
            |_c: CancellationToken| async {
                Err::<ResourceContent, _>(CallbackError::new("disk gone"))
            },
        ))
        .prompt(
            Prompt::new(
                "review",
                |args: BTreeMap<String, String>, _c: CancellationToken| async move {
                    Ok::<_, CallbackError>(vec![
                        PromptMessage::user(format!("Review {} for bugs.", args["file"])),
                        PromptMessage::assistant("On it."),
                    ])
                },
            )
            .description("Review one file")
            .argument("file", "The file to review", true),
        )
}

async fn ask(method: &str, params: Value) -> Value {
    let msg = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params});
    server()
        .handle_message(&msg, CancellationToken::new())
        .await
}

#[tokio::test]
async fn initialize_announces_resources_and_prompts_only_when_there_are_some() {
    let init = ask("initialize", json!({"protocolVersion": "2025-06-18"})).await;
    let caps = &init["result"]["capabilities"];
    assert_eq!(
        caps["resources"],
        json!({"listChanged": false, "subscribe": false})
    );
    assert_eq!(caps["prompts"], json!({"listChanged": false}));
    let bare = SdkMcpServer::new("bare", "1.0.0")
        .handle_message(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}),
            CancellationToken::new(),
        )
        .await;
    assert_eq!(
        bare["result"]["capabilities"],
        json!({"tools": {"listChanged": false}})
    );
}

#[tokio::test]
async fn resources_are_listed_and_read_as_text_or_blob() {
    let list = ask("resources/list", json!({})).await;
    assert_eq!(
        list["result"]["resources"][0],
        json!({"uri": "docs://readme", "name": "readme", "description": "The readme",
               "mimeType": "text/plain"})
    );
    assert_eq!(list["result"]["resources"].as_array().unwrap().len(), 3);
    let templates = ask("resources/templates/list", json!({})).await;
    assert_eq!(templates["result"], json!({"resourceTemplates": []}));
    let text = ask("resources/read", json!({"uri": "docs://readme"})).await;
    assert_eq!(
        text["result"],
        json!({"contents": [{"uri": "docs://readme", "mimeType": "text/plain", "text": "Hello."}]})
    );
    let blob = ask("resources/read", json!({"uri": "docs://logo"})).await;
    assert_eq!(
        blob["result"]["contents"][0],
        json!({"uri": "docs://logo", "blob": "iVBORw0K"})
    );
}

#[tokio::test]
async fn an_unknown_or_failing_resource_is_a_json_rpc_error() {
    let missing = ask("resources/read", json!({"uri": "docs://nope"})).await;
    assert_eq!(missing["error"]["code"], -32002, "{missing}");
    assert_eq!(missing["id"], 7);
    let failing = ask("resources/read", json!({"uri": "docs://broken"})).await;
    assert_eq!(failing["error"]["code"], -32603, "{failing}");
    assert!(
        failing["error"]["message"]
            .as_str()
            .unwrap()
            .contains("disk gone")
    );
    let no_uri = ask("resources/read", json!({})).await;
    assert_eq!(no_uri["error"]["code"], -32602, "{no_uri}");
}

#[tokio::test]
async fn prompts_are_listed_and_filled_in_from_their_arguments() {
    let list = ask("prompts/list", json!({})).await;
    assert_eq!(
        list["result"]["prompts"],
        json!([{"name": "review", "description": "Review one file",
                "arguments": [{"name": "file", "description": "The file to review",
                               "required": true}]}])
    );
    let got = ask(
        "prompts/get",
        json!({"name": "review", "arguments": {"file": "main.rs"}}),
    )
    .await;
    assert_eq!(
        got["result"],
        json!({"description": "Review one file", "messages": [
            {"role": "user", "content": {"type": "text", "text": "Review main.rs for bugs."}},
            {"role": "assistant", "content": {"type": "text", "text": "On it."}}]})
    );
}

#[tokio::test]
async fn a_missing_argument_or_unknown_prompt_is_invalid_params() {
    let missing = ask("prompts/get", json!({"name": "review", "arguments": {}})).await;
    assert_eq!(missing["error"]["code"], -32602, "{missing}");
    assert!(
        missing["error"]["message"]
            .as_str()
            .unwrap()
            .contains("file")
    );
    let unknown = ask("prompts/get", json!({"name": "nope"})).await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
}
