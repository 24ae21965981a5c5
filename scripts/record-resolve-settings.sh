#!/usr/bin/env bash
# Record the TS SDK's own `resolveSettings` answers for the cases in
# testdata/resolve_settings/cases.json into
# testdata/resolve_settings/ts_sdk_<version>_cases.jsonl, one JSON line per
# case: the case as written plus `out`, the SDK's answer with the case's
# temporary root written as `<root>`. `src/settings/ts_cases_tests.rs` checks
# ours against them; no test runs node or the SDK.
#
# Each case gets a fresh root: `home/` is HOME, `project/` the cwd,
# `managed/` stands in for the platform's managed-settings folder
# (`/etc/claude-code` on Linux: file-system calls naming it are redirected
# there, so nothing outside the root is read or written), and `cfg/`, when
# the case says `"config_dir_env": "cfg"`, is CLAUDE_CONFIG_DIR.
#
# Run by hand after moving to a new SDK version:
#
#   scripts/record-resolve-settings.sh [TS_VERSION]
#
# Needs node and npm (or TS_SDK_DIR, a folder holding the unpacked package,
# to skip the download).
set -euo pipefail

TS_VERSION="${1:-0.3.332}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DATA="$ROOT/testdata/resolve_settings"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# shellcheck source=scripts/lib/ts-sdk.sh
. "$ROOT/scripts/lib/ts-sdk.sh"
SDK="$(ts_sdk_dir "$TS_VERSION" "$WORK")"

# Every fs function whose first argument names the managed folder gets the
# case's `managed/` instead; the SDK's named imports see the patched ones.
cat >"$WORK/redirect.mjs" <<'JS'
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
const FROM = '/etc/claude-code';
const TO = process.env.RECORD_MANAGED_DIR;
const map = (p) =>
  typeof p === 'string' && (p === FROM || p.startsWith(FROM + '/')) ? TO + p.slice(FROM.length) : p;
const keep = ['length', 'name', 'prototype', 'arguments', 'caller'];
for (const mod of [fs, fsp]) {
  for (const [k, v] of Object.entries(mod)) {
    if (typeof v !== 'function' || /^[A-Z]/.test(k)) continue;
    const w = function (p, ...rest) { return v.call(this, map(p), ...rest); };
    for (const key of Reflect.ownKeys(v)) {
      if (!keep.includes(key)) { try { w[key] = v[key]; } catch {} }
    }
    mod[k] = w;
  }
}
syncBuiltinESMExports();
JS

cat >"$WORK/one.mjs" <<'JS'
const [sdk, caseJson, root] = process.argv.slice(2);
const { resolveSettings } = await import(sdk);
const c = JSON.parse(caseJson);
const out = await resolveSettings({ ...(c.options ?? {}), cwd: root + '/project' });
console.log(JSON.stringify(out).split(root).join('<root>'));
JS

OUT="$DATA/ts_sdk_${TS_VERSION}_cases.jsonl"
: >"$OUT.tmp"
node -e 'for (const c of JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))) console.log(JSON.stringify(c))' \
  "$DATA/cases.json" | while IFS= read -r case; do
  root="$(mktemp -d "$WORK/case.XXXXXX")"
  mkdir -p "$root/home" "$root/project" "$root/managed"
  node -e '
    const fs = require("fs"), path = require("path");
    const [root, c] = [process.argv[1], JSON.parse(process.argv[2])];
    for (const [rel, text] of Object.entries(c.files ?? {})) {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), text);
    }' "$root" "$case"
  cfg="$(node -e 'const c = JSON.parse(process.argv[1]); if (c.config_dir_env) console.log(c.config_dir_env)' "$case")"
  answer="$(cd "$root/project" && env -i PATH="$PATH" HOME="$root/home" \
    ${cfg:+CLAUDE_CONFIG_DIR="$root/$cfg"} RECORD_MANAGED_DIR="$root/managed" \
    node --import "$WORK/redirect.mjs" "$WORK/one.mjs" "$SDK/sdk.mjs" "$case" "$root")"
  node -e 'const c = JSON.parse(process.argv[1]); c.out = JSON.parse(process.argv[2]); console.log(JSON.stringify(c))' \
    "$case" "$answer" >>"$OUT.tmp"
done
mv "$OUT.tmp" "$OUT"
echo "wrote $(wc -l <"$OUT") cases to $OUT"
