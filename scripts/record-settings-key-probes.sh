#!/usr/bin/env bash
# Record how the TS SDK's own `resolveSettings` treats one value of one
# settings key, for every key and value listed in
# testdata/resolve_settings/key_probes.json, into
# testdata/resolve_settings/ts_sdk_<version>_key_probes.jsonl: one JSON line
# per key, `{"key", "values", "project", "server"}`, where `project[i]` is
# what became of `values[i]` written alone in a project's
# `.claude/settings.json`, and `server[i]` of it passed alone as
# `serverManagedSettings` (the policy tier's validation, shared by the
# managed-settings file and a parent's `managedSettings`):
#
#   "file"          the whole source was refused
#   "key"           the key was dropped, the rest of the source kept
#   {"kept": v}     the key was kept as `v` (equal to the value, or coerced)
#
# `src/settings/validate_tests.rs` checks ours against every answer; no test
# runs node or the SDK. Run by hand after moving to a new SDK version:
#
#   scripts/record-settings-key-probes.sh [TS_VERSION]
#
# Needs node and npm (or TS_SDK_DIR, a folder holding the unpacked package).
set -euo pipefail

TS_VERSION="${1:-0.3.332}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DATA="$ROOT/testdata/resolve_settings"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# shellcheck source=scripts/lib/ts-sdk.sh
. "$ROOT/scripts/lib/ts-sdk.sh"
SDK="$(ts_sdk_dir "$TS_VERSION" "$WORK")"

cat >"$WORK/probe.mjs" <<'JS'
import fs from 'node:fs';
import path from 'node:path';
const [sdk, input, work] = process.argv.slice(2);
const { resolveSettings } = await import(sdk);
const { values, keys } = JSON.parse(fs.readFileSync(input, 'utf8'));
// A sentinel key beside the probed one tells a refused source from a
// dropped key.
const SENTINEL = 'probeSentinel';
const outcome = (settings, key) => {
  if (settings === undefined || !(SENTINEL in settings)) return 'file';
  // A key present as `undefined` is absent from the SDK's JSON answer.
  if (settings[key] === undefined) return 'key';
  return { kept: settings[key] };
};
let n = 0;
for (const [key, extra] of Object.entries(keys)) {
  const all = [...values, ...extra];
  const project = [], server = [];
  for (const value of all) {
    const doc = { [SENTINEL]: 1, [key]: value };
    const cwd = path.join(work, `p${n++}`);
    fs.mkdirSync(path.join(cwd, '.claude'), { recursive: true });
    fs.writeFileSync(path.join(cwd, '.claude', 'settings.json'), JSON.stringify(doc));
    const a = await resolveSettings({ cwd, settingSources: ['project'] });
    project.push(outcome(a.sources.find((s) => s.source === 'project')?.settings, key));
    const b = await resolveSettings({ cwd, settingSources: [], serverManagedSettings: doc });
    server.push(outcome(b.sources.find((s) => s.source === 'managed')?.settings, key));
  }
  console.log(JSON.stringify({ key, values: all, project, server }));
}
JS

mkdir -p "$WORK/home" "$WORK/managed"
OUT="$DATA/ts_sdk_${TS_VERSION}_key_probes.jsonl"
(cd "$WORK" && env -i PATH="$PATH" HOME="$WORK/home" \
  node "$WORK/probe.mjs" "$SDK/sdk.mjs" "$DATA/key_probes.json" "$WORK") >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "wrote $(wc -l <"$OUT") keys to $OUT"
