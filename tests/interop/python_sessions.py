"""Drives the official Python SDK's session functions for the interop tests.

Usage: python python_sessions.py '<JSON request>'. The request names an
operation and its arguments; the answer is printed as one JSON value. The
CLI's config folder is whatever HOME / CLAUDE_CONFIG_DIR say.
"""

import dataclasses
import json
import sys

import claude_agent_sdk as sdk


def plain(value):
    """Dataclasses (SDKSessionInfo, SessionMessage) as JSON objects."""
    if dataclasses.is_dataclass(value):
        return dataclasses.asdict(value)
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def main():
    request = json.loads(sys.argv[1])
    op = request["op"]
    directory = request.get("dir")
    sid = request.get("session_id")
    if op == "list":
        answer = sdk.list_sessions(
            directory=directory,
            limit=request.get("limit"),
            offset=request.get("offset", 0),
        )
    elif op == "info":
        answer = sdk.get_session_info(sid, directory=directory)
    elif op == "messages":
        answer = sdk.get_session_messages(
            sid,
            directory=directory,
            limit=request.get("limit"),
            offset=request.get("offset", 0),
        )
    elif op == "subagents":
        answer = sdk.list_subagents(sid, directory=directory)
    elif op == "subagent_messages":
        answer = sdk.get_subagent_messages(sid, request["agent"], directory=directory)
    elif op == "tag":
        answer = sdk.tag_session(sid, request.get("tag"), directory=directory)
    elif op == "rename":
        answer = sdk.rename_session(sid, request["title"], directory=directory)
    elif op == "fork":
        answer = sdk.fork_session(
            sid, directory=directory, title=request.get("title")
        ).session_id
    elif op == "version":
        answer = sdk.__version__
    else:
        raise SystemExit(f"unknown op {op!r}")
    print(json.dumps(plain(answer)))


if __name__ == "__main__":
    main()
