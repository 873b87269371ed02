# nvim-unsaved.sh — sourced by scripts/test-agents.sh (case claude-nvim):
# run_nvim runs the real Claude Code adapter in headless Neovim (the built
# Lua module) against the scripted model server. notes.txt is loaded in a
# buffer with a line the user typed and did not save; Claude reads the file
# and writes it with one line changed; tests/agents/nvim-unsaved.lua then
# checks that the buffer holds both the user's line and Claude's change and
# is still modified, and that :RadiumUndo takes Claude's change back on disk
# while the buffer keeps the user's line.
# Neovim comes from scripts/ensure-nvim.sh (NVIM=path overrides); the Lua
# module is built by bindings/lua/build.sh (RADIUM_PROFILE=debug for a debug
# build).

run_nvim() {
  local agent=claude-nvim
  local dir=$TMP/$agent
  local ws=$dir/workspace
  mkdir -p "$ws"
  local file=$ws/notes.txt
  printf 'alpha\nbeta\ngamma\ndelta\n' >"$file"
  local failures=()
  fail() { failures+=("$*"); }
  local nvim=${NVIM:-}
  [ -n "$nvim" ] || nvim=$(bash scripts/ensure-nvim.sh) || die "no Neovim (scripts/ensure-nvim.sh failed)"
  bash bindings/lua/build.sh >&2 || die "the Lua module could not be built (bindings/lua/build.sh)"
  MODEL_VIA=files start_server "$dir" "$file" $'alpha\nbeta from claude\ngamma\ndelta\n'
  write_config "$agent" "$dir"
  : >"$dir/agent.err"
  say "$agent: headless Neovim chat (model server on port $PORT)"
  local rc=0 repo=$PWD
  (cd "$ws" && RADIUM_LUA=$repo/bindings/lua WS=$ws RHOME=$dir/radium-home AGENT=$agent \
    timeout -k 5 300 env "${unset_env[@]}" "$nvim" --headless -u NONE -l "$repo/tests/agents/nvim-unsaved.lua" \
    >"$dir/nvim.out" 2>"$dir/nvim.err" {SERVER_FD}>&-) || rc=$?
  case $rc in
    0) ;;
    124 | 137) fail "Neovim did not finish within 300 s" ;;
    *) fail "Neovim exited with code $rc" ;;
  esac
  grep -q '^FAIL ' "$dir/nvim.out" && fail "checks failed: $(grep '^FAIL ' "$dir/nvim.out" | cut -c1-300 | tr '\n' ';')"
  grep -q '^ok after :RadiumUndo the user' "$dir/nvim.out" || fail "the Neovim checks did not all run"
  stop_server
  verdict "$agent" && return 0
  {
    show "Neovim stdout (checks, notifications, the chat)" "$dir/nvim.out"
    show "Neovim stderr" "$dir/nvim.err"
    show "model server log" "$dir/server.log"
    show_agent_err "$agent" "$dir"
  } >&2
  failed_agents+=("$agent")
}
