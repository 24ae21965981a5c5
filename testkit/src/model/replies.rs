//! What the server answers: an ordered list of replies to main requests.

use serde_json::Value;
use std::collections::VecDeque;
use std::time::Duration;

/// What the server answers, in order, to the "main" requests (those whose
/// body has a non-empty `tools` array). Side requests (no `tools`) always get
/// a short text reply (`"ok"`) and do not consume a step.
#[derive(Debug, Clone)]
pub struct ModelScript {
    pub(crate) replies: VecDeque<Reply>,
    /// Steps for main requests whose first message has a marker, so
    /// concurrent conversations (a background subagent) get their own
    /// order whatever the arrival order.
    pub(crate) routes: Vec<(String, VecDeque<Reply>)>,
    pub(crate) fallback: Reply,
}

impl Default for ModelScript {
    fn default() -> Self {
        Self::new()
    }
}

impl ModelScript {
    /// An empty script: every main request gets the fallback, text `"done"`.
    pub fn new() -> Self {
        Self {
            replies: VecDeque::new(),
            routes: Vec::new(),
            fallback: Reply::text("done"),
        }
    }

    /// Appends a step: the next main request not yet answered gets `reply`.
    pub fn reply(mut self, reply: Reply) -> Self {
        self.replies.push_back(reply);
        self
    }

    /// What main requests get once the script is exhausted (default: text
    /// `"done"`).
    pub fn fallback(mut self, reply: Reply) -> Self {
        self.fallback = reply;
        self
    }

    /// Appends a step for main requests whose first message contains
    /// `marker` (e.g. a subagent's prompt): they take these steps in order,
    /// not the main sequence's, then the fallback.
    pub fn reply_for_prompt(mut self, marker: &str, reply: Reply) -> Self {
        match self.routes.iter_mut().find(|(m, _)| m == marker) {
            Some((_, steps)) => steps.push_back(reply),
            None => self
                .routes
                .push((marker.to_owned(), VecDeque::from([reply]))),
        }
        self
    }

    /// Takes the next step for a request whose first message reads
    /// `first_message`, or a copy of the fallback.
    pub(crate) fn next_reply(&mut self, first_message: &str) -> Reply {
        let queue = match self
            .routes
            .iter_mut()
            .find(|(m, _)| first_message.contains(m.as_str()))
        {
            Some((_, steps)) => steps,
            None => &mut self.replies,
        };
        queue.pop_front().unwrap_or_else(|| self.fallback.clone())
    }
}

/// One answer to one request.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// Streams `blocks`, then `message_delta` with `stop_reason` and
    /// `message_stop`; `chunk_delay` is slept before each delta event.
    Message {
        /// The content blocks, in order.
        blocks: Vec<Block>,
        /// `end_turn`, `tool_use`, `max_tokens`, ...
        stop_reason: String,
        /// Pause before each `content_block_delta`.
        chunk_delay: Duration,
    },
    /// What the API sends when its safety classifier stops a response:
    /// `text` in one block, then `stop_reason: "refusal"` with
    /// `stop_details: {"type":"refusal","category":…,"explanation":null}`.
    Refusal {
        /// The text streamed before the stop.
        text: String,
        /// `stop_details.category` (`cyber`, `bio`, …); `None` sends `null`.
        category: Option<String>,
    },
    /// An HTTP error with an Anthropic-shaped JSON body
    /// (`{"type":"error","error":{"type":"overloaded_error","message":"…"}}`).
    HttpError {
        /// HTTP status code.
        status: u16,
        /// The `error.type` field, e.g. `overloaded_error`.
        error_type: String,
        /// The `error.message` field.
        message: String,
    },
    /// Sends `message_start` and the events of `blocks_before`, then never
    /// finishes: the connection stays open until the server is dropped or
    /// the client hangs up. A non-streaming request gets no response at all.
    Hang {
        /// Blocks streamed in full before the stream stalls.
        blocks_before: Vec<Block>,
    },
}

impl Reply {
    /// One text block in a single delta, `stop_reason: "end_turn"`.
    pub fn text(t: &str) -> Self {
        Reply::Message {
            blocks: vec![Block::text(t)],
            stop_reason: "end_turn".into(),
            chunk_delay: Duration::ZERO,
        }
    }

    /// One `tool_use` block, `stop_reason: "tool_use"`.
    pub fn tool_use(id: &str, name: &str, input: Value) -> Self {
        Reply::Message {
            blocks: vec![Block::ToolUse {
                id: id.into(),
                name: name.into(),
                input,
            }],
            stop_reason: "tool_use".into(),
            chunk_delay: Duration::ZERO,
        }
    }

    /// A refusal of `category` after `text` (see [`Reply::Refusal`]).
    pub fn refusal(text: &str, category: Option<&str>) -> Self {
        Reply::Refusal {
            text: text.into(),
            category: category.map(Into::into),
        }
    }

    /// The error the API gives for `status`: 429 `rate_limit_error`, 529
    /// `overloaded_error`, 400 `invalid_request_error`, 401
    /// `authentication_error`, 404 `not_found_error`, anything else
    /// `api_error`.
    pub fn error(status: u16) -> Self {
        let (error_type, message) = match status {
            400 => ("invalid_request_error", "Invalid request"),
            401 => ("authentication_error", "invalid x-api-key"),
            403 => ("permission_error", "Permission denied"),
            404 => ("not_found_error", "Not found"),
            413 => ("request_too_large", "Request exceeds the maximum size"),
            429 => ("rate_limit_error", "Rate limited"),
            529 => ("overloaded_error", "Overloaded"),
            _ => ("api_error", "Internal server error"),
        };
        Reply::HttpError {
            status,
            error_type: error_type.into(),
            message: message.into(),
        }
    }
}

/// One content block of a scripted assistant message.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// Text split into `chunks` `text_delta` events (at least one).
    Text {
        /// The whole text.
        text: String,
        /// How many `text_delta` events carry it.
        chunks: usize,
    },
    /// A tool call; its input JSON arrives in two or more
    /// `input_json_delta` parts.
    ToolUse {
        /// The `tool_use` id the CLI echoes back in its `tool_result`.
        id: String,
        /// Tool name, e.g. `Bash`.
        name: String,
        /// Tool input object.
        input: Value,
    },
    /// Extended thinking: `thinking_delta` events then one
    /// `signature_delta`.
    Thinking {
        /// The thinking text.
        thinking: String,
        /// The opaque signature.
        signature: String,
    },
}

impl Block {
    /// A text block sent in one delta.
    pub fn text(t: &str) -> Self {
        Block::Text {
            text: t.into(),
            chunks: 1,
        }
    }
}
