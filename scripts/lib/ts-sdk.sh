# Sourced by the scripts that record the TS SDK's own answers into testdata.
# ts_sdk_dir VERSION WORK: prints a folder holding the unpacked
# @anthropic-ai/claude-agent-sdk package: $TS_SDK_DIR when set, else the
# package of VERSION fetched with `npm pack` and unpacked into WORK.
ts_sdk_dir() {
  if [[ -n "${TS_SDK_DIR:-}" ]]; then
    echo "$TS_SDK_DIR"
    return
  fi
  (cd "$2" && npm pack --silent "@anthropic-ai/claude-agent-sdk@$1" >/dev/null)
  tar -xzf "$2"/anthropic-ai-claude-agent-sdk-*.tgz -C "$2"
  echo "$2/package"
}
