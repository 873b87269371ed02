# acp-load.sh — the acp-claude-load case of scripts/test-agents.sh (sourced
# by it): `rad acp claude` driven by the official ACP SDK (drive.mjs), a chat
# turn, the editor closes; a new `rad acp claude` whose editor loads that
# session (`session/load`, passed through to Claude Code's adapter): the
# replay reaches the editor, and the next prompt's answer (`chat: recall`)
# names the earlier prompt, which the request to the model carries; the
# loaded session's prompts are radium turns: an edit asks the editor, and
# /undo takes it back. acp-claude-resume (`run_acp_load resume`): the same
# with `session/resume` (Claude Code's adapter offers it): no replay asked,
# the agent remembers, the resumed session's prompts are radium turns.
run_acp_load() {
  local how=${1:-load}
  local case=acp-claude-$how
  local dir=$TMP/$case
  local ws=$dir/workspace
  mkdir -p "$ws"
  printf 'alpha\n' >"$ws/a.txt"
  local failures=()
  fail() { failures+=("$*"); }
  local sdk
  sdk=$(bash scripts/ensure-acp-sdk.sh | sed -n 's/^sdk_modules=//p') || die "the ACP SDK could not be installed"
  export MODEL_LOG_MESSAGES=$dir/messages.jsonl
  start_server "$dir" "$ws/a.txt" $'alpha changed\n'
  unset MODEL_LOG_MESSAGES
  write_config claude "$dir"
  rad_homes+=("$dir/radium-home")
  : >"$dir/agent.err"
  say "$case: rad acp claude, a turn; a new rad acp takes up its session with session/$how (model server on port $PORT)"
  local drive=$PWD/tests/acp-proxy/drive.mjs
  drive_run() {
    local out=$1 load="" resume=""
    [ "$how" = load ] && load=$2 || resume=$2
    shift 2
    local rc=0
    (cd "$ws" && RADIUM_HOME=$dir/radium-home RADIUM_DAEMON_IDLE=60 ACP_SDK_MODULES=$sdk LOAD=$load RESUME=$resume WATCH=$ws/a.txt \
      timeout -k 5 240 env "${unset_env[@]}" "$NODE" "$drive" "$RAD" claude "$@" \
      >"$dir/$out.jsonl" 2>"$dir/$out.err" {SERVER_FD}>&-) || rc=$?
    [ "$rc" = 0 ] || fail "the editor (drive.mjs $out) exited with code $rc"
  }
  drive_run first "" "chat: apple tree"
  local id
  id=$(jq -r 'select(.sessionId) | .sessionId' "$dir/first.jsonl" 2>/dev/null | head -n 1)
  [ -n "$id" ] && [ "$id" != null ] || fail "no session id in the first run: $(cat "$dir/first.jsonl")"
  jq -r 'select(.prompt) | .text' "$dir/first.jsonl" | grep -qF "pong: apple tree" || fail "the first turn's answer did not stream to the editor"
  drive_run second "$id" "chat: recall" "Change a.txt" /undo
  at() { jq -rs --argjson n "$1" "[.[] | select(.prompt)] | .[\$n - 1] | $2" "$dir/second.jsonl" 2>/dev/null; }
  [ "$how" = resume ] || jq -e -s 'map(select(.sessionId))[0].replayed | any(contains("chat: apple tree"))' "$dir/second.jsonl" >/dev/null \
    || fail "the replay of the loaded session did not reach the editor: $(head -n 1 "$dir/second.jsonl")"
  [ "$(at 1 .stopReason)" = end_turn ] || fail "the loaded session's prompt did not end with end_turn"
  at 1 .text | grep -qF "recall: apple tree" \
    || fail "the agent did not remember the loaded session (no 'recall: apple tree'): $(cat "$dir/second.jsonl")"
  jq -e -s 'map(select(.tools > 0 and (.messages[-1].text | contains("chat: recall"))))
    | length > 0 and all(.messages | map(.text) | join("\n") | contains("chat: apple tree"))' \
    "$dir/messages.jsonl" >/dev/null \
    || fail "the model server's log has no request of the loaded session holding the first prompt"
  [ "$(at 2 ".files[\"$ws/a.txt\"]")" = "alpha changed" ] || fail "the loaded session's edit was not written: $(at 2 .)"
  [ "$(at 2 .permissions)" -ge 1 ] 2>/dev/null || fail "the loaded session's edit did not ask the editor: $(at 2 .)"
  [ "$(at 3 ".files[\"$ws/a.txt\"]")" = alpha ] || fail "/undo did not take the loaded session's edit back: $(at 3 .)"
  stop_server
  verdict "$case" && return 0
  {
    show "first run (drive.mjs)" "$dir/first.jsonl"
    show "second run (drive.mjs)" "$dir/second.jsonl"
    show "rad acp stderr" "$dir/second.err"
    show "model server log" "$dir/server.log"
    show_agent_err "$case" "$dir"
  } >&2
  failed_agents+=("$case")
}
