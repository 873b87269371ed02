# acp-mcp.sh — the acp-claude-mcp case of scripts/test-agents.sh (sourced by
# it): `rad acp claude` driven by the official ACP SDK (drive.mjs), whose
# model edits a.txt through radium's MCP tool str_replace (the `rad mcp`
# `rad acp` adds to Claude Code's MCP servers) rather than its own file
# tools: the edit is written, recorded as the turn's radium edit (/changes
# shows its diff, /undo takes it back, /redo brings it back), and radium's
# commands never reach the model.
run_acp_mcp() {
  local case=acp-claude-mcp
  local dir=$TMP/$case
  local ws=$dir/workspace
  mkdir -p "$ws"
  printf 'hello\n' >"$ws/a.txt"
  local failures=()
  fail() { failures+=("$*"); }
  local sdk
  sdk=$(bash scripts/ensure-acp-sdk.sh | sed -n 's/^sdk_modules=//p') || die "the ACP SDK could not be installed"
  MODEL_VIA=mcp start_server "$dir" "$ws/a.txt" $'hello through rad mcp\n'
  write_config claude "$dir"
  rad_homes+=("$dir/radium-home")
  : >"$dir/agent.err"
  say "$case: rad acp claude, an edit through rad mcp (model server on port $PORT)"
  local rc=0 out=$dir/editor.jsonl drive=$PWD/tests/acp-proxy/drive.mjs
  (cd "$ws" && RADIUM_HOME=$dir/radium-home RADIUM_DAEMON_IDLE=60 ACP_SDK_MODULES=$sdk WATCH=$ws/a.txt \
    timeout -k 5 240 env "${unset_env[@]}" "$NODE" "$drive" "$RAD" claude \
    "Replace the whole content of a.txt with: hello through rad mcp" /changes /undo /redo \
    >"$out" 2>"$dir/rad.err" {SERVER_FD}>&-) || rc=$?
  [ "$rc" = 0 ] || fail "the editor (drive.mjs) exited with code $rc"
  at() { jq -rs --argjson n "$1" "[.[] | select(.prompt)] | .[\$n - 1] | $2" "$out" 2>/dev/null; }
  local a=$ws/a.txt
  [ "$(at 1 .stopReason)" = end_turn ] || fail "the turn did not end with end_turn: $(at 1 .)"
  [ "$(at 1 ".files[\"$a\"]")" = "hello through rad mcp" ] || fail "a.txt was not written through rad mcp: $(at 1 .files)"
  at 1 .text | grep -q 'through radium' || fail "the model was not offered radium's str_replace (rad mcp): $(at 1 .text)"
  # A write through rad mcp has no tool-call diff: /changes shows the diff
  # radium recorded (a.txt before the turn against now).
  at 2 .text | grep -q '^+++ b/a.txt' || fail "/changes does not name the rad mcp edit: $(at 2 .text)"
  at 2 .text | grep -q '^-hello$' || fail "/changes does not show the text before the rad mcp edit: $(at 2 .text)"
  at 2 .text | grep -q '^+hello through rad mcp$' || fail "/changes does not show the rad mcp edit: $(at 2 .text)"
  [ "$(at 3 ".files[\"$a\"]")" = hello ] || fail "/undo did not take the rad mcp edit back: $(at 3 .)"
  [ "$(at 4 ".files[\"$a\"]")" = "hello through rad mcp" ] || fail "/redo did not bring the rad mcp edit back: $(at 4 .)"
  [ "$(jq -r 'select(.exit != null) | .exit' "$out" 2>/dev/null)" = 0 ] || fail "rad acp did not exit 0 when the editor closed stdin"
  [ "$(grep -c 'command /' "$dir/server.log" 2>/dev/null || true)" = 0 ] || fail "a radium command reached the model"
  stop_server
  verdict "$case" && return 0
  {
    show "editor lines (drive.mjs)" "$out"
    show "rad acp stderr" "$dir/rad.err"
    show "model server log" "$dir/server.log"
    show_agent_err "$case" "$dir"
  } >&2
  failed_agents+=("$case")
}
