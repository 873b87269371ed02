# nvim-list.sh — sourced by scripts/test-agents.sh (case claude-nvim-list):
# run_nvim_list makes a Claude Code session radium's history does not hold
# (one `rad chat` turn, then radium's conversation files removed, as a
# session started in Claude's own command line), then in headless Neovim
# (tests/agents/nvim-list.lua) `:RadiumChat history <agent>` must offer it
# marked "(the agent's own)" (session/list), and the chat it opens must take
# it up: the model server receives the earlier turn on the next prompt.

run_nvim_list() {
  local agent=claude-nvim-list
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
  say "$agent: a rad chat turn, radium's record of it removed, then :RadiumChat history $agent (model server on port $PORT)"
  local rc=0 repo=$PWD
  (cd "$ws" && RADIUM_HOME=$dir/radium-home RADIUM_DAEMON_IDLE=60 \
    timeout -k 5 120 env "${unset_env[@]}" "$RAD" chat "$agent" --prompt "chat: apple tree" \
    >"$dir/first.out" 2>"$dir/first.err" {SERVER_FD}>&-) || rc=$?
  [ "$rc" = 0 ] || fail "rad chat exited with code $rc"
  grep -qF "pong: apple tree" "$dir/first.out" || fail "the first turn's answer is not shown"
  RADIUM_HOME=$dir/radium-home timeout 10 "$RAD" shutdown >/dev/null 2>&1 || true
  # Radium forgets it: the session is now only Claude's own.
  rm -f "$dir"/radium-home/*/conversations/*.jsonl
  rc=0
  (cd "$ws" && RADIUM_LUA=$repo/bindings/lua WS=$ws RHOME=$dir/radium-home AGENT=$agent \
    timeout -k 5 300 env "${unset_env[@]}" "$nvim" --headless -u NONE -l "$repo/tests/agents/nvim-list.lua" \
    >"$dir/nvim.out" 2>"$dir/nvim.err" {SERVER_FD}>&-) || rc=$?
  [ "$rc" = 0 ] || fail "Neovim exited with code $rc: $(grep '^FAIL ' "$dir/nvim.out" | cut -c1-300)"
  grep -q '^ok the agent remembers' "$dir/nvim.out" || fail "the Neovim picker did not take up Claude's own session"
  RADIUM_HOME=$dir/radium-home timeout 10 "$RAD" shutdown >/dev/null 2>&1 || true
  stop_server
  verdict "$agent" && return 0
  {
    show "rad chat stdout" "$dir/first.out"
    show "rad chat stderr" "$dir/first.err"
    show "Neovim stdout" "$dir/nvim.out"
    show "Neovim stderr" "$dir/nvim.err"
    show "model server log" "$dir/server.log"
    show_agent_err "$agent" "$dir"
  } >&2
  failed_agents+=("$agent")
}
