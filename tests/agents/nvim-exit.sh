# nvim-exit.sh — sourced by scripts/test-agents.sh (case claude-nvim-exit):
# run_nvim_exit runs one chat turn with the real Claude Code adapter in
# headless Neovim (tests/agents/nvim-exit.lua), which then quits; Neovim's
# exit waits (bounded) for the chat's gentle close, so Claude saves its
# session. Then, Neovim gone, `rad chat <agent> --continue` must resume
# Claude's own session (not fall back to context) and the model server must
# receive the earlier turn. (claude-agent-acp 0.23.1 writes its session file
# as the turn goes, so this holds even without the wait; the wait itself is
# held by bindings/lua/tests/spec/chat_history.lua, with an agent whose save
# takes 500 ms.)

run_nvim_exit() {
  local agent=claude-nvim-exit
  local dir=$TMP/$agent
  local ws=$dir/workspace
  mkdir -p "$ws"
  local failures=()
  fail() { failures+=("$*"); }
  local nvim=${NVIM:-}
  [ -n "$nvim" ] || nvim=$(bash scripts/ensure-nvim.sh) || die "no Neovim (scripts/ensure-nvim.sh failed)"
  bash bindings/lua/build.sh >&2 || die "the Lua module could not be built (bindings/lua/build.sh)"
  start_server "$dir" "$ws/unused.txt" ""
  write_config "$agent" "$dir"
  rad_homes+=("$dir/radium-home")
  : >"$dir/agent.err"
  say "$agent: a Neovim chat turn, :qa!, then rad chat --continue (model server on port $PORT)"
  local rc=0 repo=$PWD
  (cd "$ws" && RADIUM_LUA=$repo/bindings/lua WS=$ws RHOME=$dir/radium-home AGENT=$agent \
    timeout -k 5 300 env "${unset_env[@]}" "$nvim" --headless -u NONE -l "$repo/tests/agents/nvim-exit.lua" \
    >"$dir/nvim.out" 2>"$dir/nvim.err" {SERVER_FD}>&-) || rc=$?
  [ "$rc" = 0 ] || fail "Neovim exited with code $rc"
  grep -q '^ok the turn ended' "$dir/nvim.out" || fail "the Neovim turn did not end: $(grep '^FAIL ' "$dir/nvim.out" | cut -c1-300)"
  rc=0
  (cd "$ws" && RADIUM_HOME=$dir/radium-home RADIUM_DAEMON_IDLE=60 \
    timeout -k 5 120 env "${unset_env[@]}" "$RAD" chat "$agent" --continue --prompt "chat: recall" \
    >"$dir/second.out" 2>"$dir/second.err" {SERVER_FD}>&-) || rc=$?
  [ "$rc" = 0 ] || fail "rad chat --continue exited with code $rc"
  grep -qF "the agent resumed its own session" "$dir/second.err" \
    || fail "Claude's session was not resumed after Neovim's exit (not saved?)"
  grep -qF "recall: apple tree" "$dir/second.out" \
    || fail "the model was not sent the earlier turn (its answer does not recall it)"
  RADIUM_HOME=$dir/radium-home timeout 10 "$RAD" shutdown >/dev/null 2>&1 || true
  stop_server
  verdict "$agent" && return 0
  {
    show "Neovim stdout" "$dir/nvim.out"
    show "Neovim stderr" "$dir/nvim.err"
    show "rad chat --continue stdout" "$dir/second.out"
    show "rad chat --continue stderr" "$dir/second.err"
    show "model server log" "$dir/server.log"
    # Claude's own session files (what a resume reads): names, sizes, and
    # the kind of each record.
    echo "--- Claude's session files ($dir/home/.claude/projects)"
    find "$dir/home/.claude/projects" -name '*.jsonl' -printf '    %p %s bytes\n' 2>/dev/null
    find "$dir/home/.claude/projects" -name '*.jsonl' -exec sh -c \
      'for f; do echo "    $(basename "$f"):"; cut -c1-160 "$f" | sed "s/^/      /"; done' sh {} + 2>/dev/null
    show_agent_err "$agent" "$dir"
  } >&2
  failed_agents+=("$agent")
}
