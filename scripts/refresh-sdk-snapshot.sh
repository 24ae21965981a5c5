#!/usr/bin/env bash
# Regenerate testdata/sdk-snapshot/ from the official SDK packages: the
# names each SDK defines (options, hook events, message types, control
# requests, methods, functions), one per line. tests/parity_table.rs fails
# when one of them has no row in docs/PARITY.md.
#
# Run by hand after moving to a new SDK version (CI reads the committed
# snapshot and never runs this):
#
#   scripts/refresh-sdk-snapshot.sh [TS_VERSION [PY_VERSION]]
#
# Needs npm, pip and python3; downloads into a temporary directory only.
set -euo pipefail

TS_VERSION="${1:-0.3.332}"
PY_VERSION="${2:-0.2.189}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/testdata/sdk-snapshot"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

(cd "$WORK" && npm pack --silent "@anthropic-ai/claude-agent-sdk@$TS_VERSION" >/dev/null)
tar -xzf "$WORK"/anthropic-ai-claude-agent-sdk-*.tgz -C "$WORK"
# The wheel is platform-tagged (it bundles a CLI); any platform's Python
# sources are the same, so take the one pip picks for this machine.
python3 -m pip download --quiet --no-deps "claude-agent-sdk==$PY_VERSION" -d "$WORK/wheel"

mkdir -p "$OUT"
python3 - "$WORK/package/sdk.d.ts" "$WORK"/wheel/claude_agent_sdk-*.whl "$OUT" "$TS_VERSION" "$PY_VERSION" <<'PY'
"""Read the names out of sdk.d.ts and the Python wheel's sources."""
import ast
import re
import sys
import zipfile
from pathlib import Path

dts_path, wheel_path, out_dir, ts_version, py_version = sys.argv[1:6]
dts = Path(dts_path).read_text()
out = Path(out_dir)
wheel = zipfile.ZipFile(wheel_path)


def write(name, source, names):
    names = sorted(set(names), key=lambda n: (n.lower(), n))
    if not names:
        sys.exit(f"{name}: nothing extracted from {source}; the layout changed")
    header = f"# {source}\n# Regenerate with scripts/refresh-sdk-snapshot.sh; one name per line.\n"
    (out / name).write_text(header + "".join(n + "\n" for n in names))


def block(start_re):
    """The lines of the `{ ... };` body that follows the first match."""
    m = re.search(start_re, dts, re.M)
    if not m:
        sys.exit(f"sdk.d.ts: no match for {start_re!r}")
    body = []
    for line in dts[m.end():].splitlines():
        if line.startswith("}"):
            return body
        body.append(line)
    sys.exit(f"sdk.d.ts: {start_re!r} has no end")


def members(body):
    """Top-level (4-space) member names of a type body, comments skipped."""
    names = []
    for line in body:
        m = re.match(r"^    ([A-Za-z_$][\w$]*)\??\s*[:(<]", line)
        if m:
            names.append(m.group(1))
    return names


ts = f"@anthropic-ai/claude-agent-sdk@{ts_version} sdk.d.ts"

write("ts-options.txt", f"{ts}: keys of `Options`",
      members(block(r"^export declare type Options = \{\n")))

hooks = re.search(r"^export declare const HOOK_EVENTS: readonly \[(.*?)\];", dts, re.M)
write("ts-hook-events.txt", f"{ts}: HOOK_EVENTS", re.findall(r"'([^']+)'", hooks.group(1)))


def type_def(name):
    m = re.search(rf"^(?:export )?declare type {re.escape(name)} = (.*)$", dts, re.M)
    if not m:
        sys.exit(f"sdk.d.ts: no definition of {name}")
    return m


def message_names(name, seen):
    """`type` (and `system/<subtype>`) of one union member, following aliases."""
    if name in seen:
        return []
    seen.add(name)
    m = type_def(name)
    rhs = m.group(1).strip()
    if rhs != "{":
        # An alias: a union or intersection of other named types.
        names = []
        for part in re.findall(r"[A-Za-z_][\w.]*", rhs):
            part = part.split(".")[-1]
            if part.startswith("SDK"):
                names += message_names(part, seen)
        return names
    body = block(rf"^(?:export )?declare type {re.escape(name)} = \{{\n")
    kind = sub = None
    for line in body:
        t = re.match(r"^    type: '([^']+)';", line)
        s = re.match(r"^    subtype: '([^']+)';", line)
        kind = kind or (t and t.group(1))
        sub = sub or (s and s.group(1))
    if kind is None:
        sys.exit(f"sdk.d.ts: {name} has no type literal")
    return [f"{kind}/{sub}" if kind == "system" and sub else kind]


def union(decl):
    m = re.search(rf"^(?:export )?declare type {decl} = (.*);$", dts, re.M)
    return [p.strip().split(".")[-1] for p in m.group(1).split("|")]


seen = set()
messages = []
for member in union("SDKMessage") + union("StdoutMessage"):
    if member in ("SDKMessage",):
        continue
    messages += message_names(member, seen)
write("ts-messages.txt", f"{ts}: `type` (and `system/<subtype>`) of SDKMessage and StdoutMessage", messages)

controls = []
for member in union("SDKControlRequestInner"):
    body = block(rf"^(?:export )?declare type {re.escape(member)} = \{{\n")
    for line in body:
        s = re.match(r"^    subtype: '([^']+)';", line)
        if s:
            controls.append(s.group(1))
write("ts-control-requests.txt", f"{ts}: `subtype` of SDKControlRequestInner (both directions)", controls)

write("ts-query-methods.txt", f"{ts}: methods of `Query`",
      [n for n in members(block(r"^export declare interface Query extends [^\n]*\{\n"))])

write("ts-functions.txt", f"{ts}: exported functions",
      re.findall(r"^export declare function ([A-Za-z_$][\w$]*)", dts, re.M))

py = f"claude-agent-sdk=={py_version}"


def py_source(path):
    return ast.parse(wheel.read(path).decode())


def class_def(tree, name):
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            return node
    sys.exit(f"{py}: no class {name}")


options = class_def(py_source("claude_agent_sdk/types.py"), "ClaudeAgentOptions")
write("py-options.txt", f"{py}: fields of `ClaudeAgentOptions`",
      [n.target.id for n in options.body if isinstance(n, ast.AnnAssign)])

client = class_def(py_source("claude_agent_sdk/client.py"), "ClaudeSDKClient")
write("py-client-methods.txt", f"{py}: public methods of `ClaudeSDKClient`",
      [n.name for n in client.body
       if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and not n.name.startswith("_")])

init = py_source("claude_agent_sdk/__init__.py")
exported = []
for node in init.body:
    if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in node.targets):
        exported = [e.value for e in node.value.elts]
# Functions are the lower-case exports (classes and type aliases are not).
write("py-functions.txt", f"{py}: exported functions (`__all__`, lower case)",
      [n for n in exported if n[:1].islower() and not n.startswith("__")])

query = wheel.read("claude_agent_sdk/_internal/query.py").decode()
write("py-control-requests.txt", f"{py}: control request subtypes it sends",
      [s for s in re.findall(r'"subtype": "([a-z_]+)"', query)
       if s not in ("success", "error", "mirror_error")])
PY

echo "snapshot written to $OUT"
