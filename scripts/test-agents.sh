#!/usr/bin/env bash
# test-agents.sh — real coding agents from npm through `rad chat`, each
# against a scripted model server on 127.0.0.1 (tests/agents/model-server.mjs):
#   - claude: Claude Code through Zed's adapter (@zed-industries/claude-agent-acp);
#   - gemini: Gemini CLI (`gemini --acp`);
#   - claude-mcp: Claude Code again, whose model calls radium's MCP tool
#     str_replace (the `rad mcp` the session offers it) instead of its own
#     file tools: the edit is a radium changeset the session reports;
#   - claude-bash: Claude Code runs one command with its Bash tool: rad chat
#     (text, as a user sees it) shows the command and its output under the
#     tool call.
#   - claude-hunks: Claude Code rewrites a 20-line file changing two separate
#     lines; rad chat's `h` answer (its stdin piped) keeps the first hunk and
#     rejects the second: exactly the kept hunk is on disk, and
#     `rad undo --tag <tag>` gives the file back;
#   - gemini-catalogue: no agents.toml at all: `rad agents install gemini`
#     installs the catalogue's pinned @google/gemini-cli from the npm
#     registry into a fresh cache (XDG_CACHE_HOME; a real download, about a
#     minute, not the ensure-agents.sh copy, so the install itself is tested),
#     `rad agents list` shows it installed, `rad agents check gemini` starts
#     it, and `rad chat` with no agent named runs a turn with it;
#   - claude-catalogue: the same with Claude Code's adapter, from the copy
#     ensure-agents.sh installed, linked into the fresh cache (the same
#     pinned version): `rad agents install` finds it, check and a chat turn;
#   - gemini-hunks: the same with Gemini CLI, which writes through radium
#     (fs/write_text_file): the rejected hunk never reaches the disk.
#   - claude-hooks: a user extension's before_tool hook refuses `ls`; Claude
#     Code, which runs `ls` without asking, is refused through the PreToolUse
#     hook radium adds to its settings for the session (rad chat shows the
#     refusal and no listing), while an `echo` the hook lets through runs.
#   - claude-turn: Claude Code writes two files in one turn (its own Write,
#     after a permission each): one `rad undo --tag <turn tag>` takes both
#     back, one `rad redo --tag` brings both back, and `rad rewind
#     <tag_before>` (after a --dry-run that lists both and changes nothing)
#     restores them to before the prompt.
#   - claude-nvim: Claude Code in headless Neovim (tests/agents/nvim-unsaved.sh):
#     a buffer with an unsaved line survives Claude's edit of its file, with
#     the edit merged in, and :RadiumUndo; with follow_agent on, Claude's
#     edit shows the file in the window the chat was opened from.
#   - claude-modes: the modes and models Claude's adapter offers: rad chat's
#     `/model` and `/mode` list them; `--model <another one>` makes the model
#     server receive that model for the turn; `--mode plan` (with --yes)
#     keeps Claude from editing: the scripted model tries to write
#     notes.txt, Claude Code asks (plan mode only tells its model not to
#     edit), radium refuses the edit in plan mode, the file is unchanged.
#     `/effort` lists its reasoning efforts, or says it offers none (then
#     `--effort high` exits 1 before the prompt).
#   - claude-usermcp: the user's own stdio MCP server
#     (tests/agents/user-mcp-server.mjs), configured in $RADIUM_HOME/mcp.toml
#     with an argument and an environment variable, is passed to Claude Code
#     by the session; the scripted model calls its tool
#     (mcp__usertools__write_marker) and the marker file appears with the
#     prefix (the argument) in the file the variable names.
#   - claude-resume: one `rad chat --prompt` turn with Claude Code, then
#     `rad chat claude-resume --continue --prompt ...` in a new process: the
#     adapter resumes its own session (session/resume), the model server
#     receives the earlier turn in the second turn's messages, and the
#     transcript shows the earlier turn once, then the new answer.
#   - claude-nvim-exit: a chat turn with Claude Code in headless Neovim,
#     then :qa! (tests/agents/nvim-exit.sh): Neovim's exit waits for the
#     gentle close, so `rad chat --continue` then resumes Claude's session.
#   - claude-notice: a start notice (a broken mcp.toml: its servers not
#     passed) is on screen as `rad chat` opens with Claude Code, before any
#     prompt, and said once in a run with a prompt.
#   - claude-flood: Claude Code streams 20,000 small text deltas (`chat:
#     flood 20000`): `rad chat --json` shows every number once and in order,
#     and turn_end's text is the same text (a reader behind gets it joined).
#   - claude-list: a Claude Code session radium's history does not hold (its
#     conversation file removed after one turn, as a session started in
#     Claude's own command line) is listed by `rad chat claude-list --list`
#     marked as the agent's (session/list), and `--resume agent:<id>` takes
#     it up: the model server receives the earlier turn.
#   - claude-nvim-list: the same session offered by Neovim's `:RadiumChat
#     history <agent>` marked "(the agent's own)"; the chat it opens takes it
#     up and the model server receives the earlier turn
#     (tests/agents/nvim-list.sh).
#   - claude-commands: Claude Code's slash commands reach the door (rad chat
#     --json shows a `commands` event holding a project command of the
#     workspace's .claude/commands and Claude Code's own), a prompt
#     `/radium-echo <words>` reaches the agent unchanged (Claude Code expands
#     the command, the model answers its text), and the usage is on screen
#     after the turn (rad chat's text output: `[usage: ... tokens, $...]`).
#   - claude-image, gemini-image: `rad chat <agent> --image shot.png --prompt
#     "chat: image"` with a small PNG of the workspace: the model server
#     finds an image block in the request (Anthropic: {type: "image", source:
#     {type: "base64", media_type, data}}; Gemini: an inlineData part) and
#     answers its type and the SHA-256 of its data, which must be the PNG's;
#     `--image notes.txt` (not an image) exits 1 naming it, before the agent
#     gets anything.
#   - gemini-resume, gemini-modes, gemini-commands: the same with Gemini
#     CLI (see tests/agents/gemini-cases.sh).
#   - acp-claude, acp-gemini: `rad acp` between an editor (the official ACP
#     TypeScript SDK, tests/acp-proxy/drive.mjs) and the agent: a turn
#     streams through to the editor; the edit asks the editor's permission
#     (Claude Code; Gemini CLI writes through radium); radium's commands are
#     in the editor's command list; /changes shows the diff, /undo takes the
#     whole turn back (both files with Claude Code), /redo brings it back,
#     /rewind 1 restores the files to before the first prompt — none of
#     them reaching the agent. acp-claude again with a before_tool hook
#     refusing any call naming b.txt: the editor is asked once (a.txt),
#     b.txt is untouched and the hook's refusal is in the answer.
#   - acp-claude-load: a turn through `rad acp claude`, then a new one whose
#     editor loads the session: the replay and the memory of it (see
#     tests/agents/acp-load.sh).
#   - acp-claude-resume: the same with session/resume (no replay asked).
#   - acp-claude-mcp: `rad acp claude` whose model edits through radium's
#     MCP tool: the edit is the turn's radium edit (/changes, /undo, /redo;
#     see tests/agents/acp-mcp.sh).
# scripts/ensure-agents.sh installs them (pinned) into a cache folder when
# they are missing. For each agent, in a fresh workspace holding notes.txt
# ("hello\n"), with a fresh RADIUM_HOME and a fresh HOME for the agent, one
# turn of `rad chat <agent> --prompt ... --json --yes` must show what a user
# sees: streamed text, the permission to write allowed, notes.txt with its new
# content, a turn_end with stop_reason end_turn and a tag; then
# `rad undo --tag <tag>` must give notes.txt back its "hello\n". For claude,
# `rad agents check claude` must say OK, and with IS_SANDBOX=yes exit 1
# naming "Query closed before response received" and the IS_SANDBOX hint;
# and in one session through rad's daemon, a turn cancelled mid-answer then
# two prompts must each have their own answer under them
# (tests/agents/cancel-then-prompt.mjs).
#
#   scripts/test-agents.sh [CASE ...]   (default: every case in ALL below)
#   scripts/test-agents.sh --lanes N [CASE ...]   the cases in N runs side by side
#   scripts/test-agents.sh --list   the cases' names, one a line
#   RAD=path/to/rad   the binary (default target/debug/rad; it is not built here)
#   RADIUM_TEST_KEEP=1  keeps the temporary folder (its path is printed)
#
# Every failed check is printed with the events, the model server's log, rad's
# stderr and the agent's stderr, and the script exits non-zero; nothing is
# skipped silently. The model servers, rad's daemons and any agent process left
# are ended at exit (by pid, and by process group).
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "test-agents: $*" >&2; exit 1; }
say() { echo "test-agents: $*" >&2; }

ALL=(claude gemini gemini-catalogue claude-catalogue claude-mcp claude-bash claude-hunks gemini-hunks claude-hooks claude-turn claude-nvim claude-modes claude-usermcp claude-resume claude-list claude-nvim-list claude-nvim-exit claude-notice claude-flood claude-commands claude-image gemini-image gemini-resume gemini-modes gemini-commands acp-claude acp-gemini acp-claude-load acp-claude-resume acp-claude-mcp)
# --list: the cases' names, one a line (scripts/test.sh runs the Neovim ones
# after the others, with the release's Neovim module).
if [ "${1:-}" = --list ]; then
  printf '%s\n' "${ALL[@]}"
  exit 0
fi
# --lanes N: the cases (all, or those named) split into N runs of this
# script side by side, each with its own model servers, homes and run id
# (about 40 % off the wall time on 2 cores). Each lane's output is printed
# whole when it ends; any lane failing fails the whole.
if [ "${1:-}" = --lanes ]; then
  lanes=${2:-}
  [[ "$lanes" =~ ^[1-9][0-9]*$ ]] || die "--lanes needs a number of lanes, got '${lanes}'"
  shift 2
  cases=("$@")
  [ ${#cases[@]} -gt 0 ] || cases=("${ALL[@]}")
  lane_dir=$(mktemp -d)
  pids=()
  # Stopped, the lanes stop too (each ends its own servers and agents).
  trap 'for e in "${pids[@]}"; do kill "${e#*:}" 2>/dev/null; done; rm -rf "$lane_dir"' EXIT
  for ((l = 0; l < lanes; l++)); do
    mine=()
    for i in "${!cases[@]}"; do
      [ $((i % lanes)) -eq "$l" ] && mine+=("${cases[$i]}")
    done
    [ ${#mine[@]} -gt 0 ] || continue
    bash "$0" "${mine[@]}" >"$lane_dir/$l.log" 2>&1 &
    pids+=("$l:$!")
  done
  failed_lanes=()
  for entry in "${pids[@]}"; do
    l=${entry%%:*}
    if wait "${entry#*:}"; then status=0; else status=$?; fi
    echo "--- test-agents lane $l (exit $status)"
    cat "$lane_dir/$l.log"
    [ "$status" -eq 0 ] || failed_lanes+=("$l")
  done
  pids=()
  if [ ${#failed_lanes[@]} -gt 0 ]; then
    # What failed, again, after the lanes' long logs: a log's tail names it.
    echo "--- test-agents: what failed"
    for l in "${failed_lanes[@]}"; do
      awk '/^=== .*: FAILED$/ {on = 1; print; next} on && /^  - / {print; next} {on = 0}' "$lane_dir/$l.log"
      grep -h '^test-agents: failed' "$lane_dir/$l.log" || echo "test-agents: lane $l ended without naming a case (its log is above)"
    done
    die "lanes failed: ${failed_lanes[*]} (their output is above)"
  fi
  echo "test-agents: all passed in $lanes lanes (${cases[*]})"
  exit 0
fi
agents=("$@")
[ ${#agents[@]} -gt 0 ] || agents=("${ALL[@]}")
for a in "${agents[@]}"; do
  [[ " ${ALL[*]} " == *" $a "* ]] || die "unknown case '$a' (one of: ${ALL[*]})"
done

for tool in node jq timeout mkfifo realpath ps; do
  command -v "$tool" >/dev/null || die "$tool is required"
done
RAD=${RAD:-target/debug/rad}
RAD=$(realpath -e "$RAD" 2>/dev/null) || die "no rad binary at ${RAD} (build it with cargo build -p radium-cli, or set RAD)"
[ -x "$RAD" ] || die "$RAD is not executable"
SERVER=$PWD/tests/agents/model-server.mjs
[ -f "$SERVER" ] || die "$SERVER is missing"

entries=$(bash scripts/ensure-agents.sh) || die "the agents could not be installed (scripts/ensure-agents.sh failed)"
CLAUDE_JS=$(sed -n 's/^claude=//p' <<<"$entries")
GEMINI_JS=$(sed -n 's/^gemini=//p' <<<"$entries")
[ -f "$CLAUDE_JS" ] && [ -f "$GEMINI_JS" ] || die "scripts/ensure-agents.sh printed no entry points: $entries"
NODE=$(command -v node)

# Every agent process carries this in its environment (agents.toml), so what
# is left of them is found, and only them, whatever became of rad.
RUN_ID="radium-test-agents-$$-$(date +%s%N)"
TMP=$(mktemp -d)
TMP=$(cd "$TMP" && pwd -P)
server_pids=()
rad_homes=()

# The pids of the processes whose environment carries RUN_ID.
marked_pids() {
  local env pid
  for env in /proc/[0-9]*/environ; do
    pid=${env#/proc/}
    pid=${pid%/environ}
    [ "$pid" = $$ ] && continue
    if { tr '\0' '\n' <"$env"; } 2>/dev/null | grep -qx "RADIUM_TEST_AGENTS=$RUN_ID"; then
      echo "$pid"
    fi
  done
}

# Ends the marked processes (their process groups too); prints what it ended.
reap() {
  local pids pid pgid
  pids=$(marked_pids)
  [ -n "$pids" ] || return 0
  for pid in $pids; do
    pgid=$(ps -o pgid= -p "$pid" 2>/dev/null | tr -d ' ') || true
    echo "$pid ($({ tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null | cut -c1-120))"
    if [ -n "$pgid" ] && [ "$pgid" != "$(ps -o pgid= -p $$ | tr -d ' ')" ]; then
      kill -TERM -- "-$pgid" 2>/dev/null || true
    fi
    kill -TERM "$pid" 2>/dev/null || true
  done
  sleep 1
  for pid in $(marked_pids); do kill -KILL "$pid" 2>/dev/null || true; done
}

cleanup() {
  local status=$?
  set +e
  for home in "${rad_homes[@]}"; do
    RADIUM_HOME=$home timeout 10 "$RAD" shutdown >/dev/null 2>&1
  done
  for pid in "${server_pids[@]}"; do
    kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  done
  local left
  left=$(reap)
  [ -z "$left" ] || say "ended agent processes still running at exit: $left"
  if [ "${RADIUM_TEST_KEEP:-}" = 1 ]; then
    say "kept $TMP"
  else
    rm -rf "$TMP"
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# toml_string TEXT: TEXT as a TOML basic string.
toml_string() { jq -Rn --arg s "$1" '$s'; }

# write_config AGENT DIR: DIR/radium-home/agents.toml and the agent's HOME.
write_config() {
  local agent=$1 dir=$2
  local home=$dir/home rhome=$dir/radium-home
  mkdir -p "$home" "$rhome"
  local entry args env
  # The agent's stderr goes to radium (which keeps its end for error messages)
  # and to DIR/agent.err, for this script to show.
  local wrapper='exec "$0" "$@" 2> >(tee -a "$RADIUM_TEST_AGENT_ERR" >&2)'
  case "$agent" in
    claude*)
      entry=$CLAUDE_JS
      args=""
      mkdir -p "$home/.claude"
      env="ANTHROPIC_BASE_URL = $(toml_string "http://127.0.0.1:$PORT")
ANTHROPIC_API_KEY = \"sk-ant-test-not-a-key\"
CLAUDE_CONFIG_DIR = $(toml_string "$home/.claude")
CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC = \"1\"
DISABLE_TELEMETRY = \"1\"
DISABLE_AUTOUPDATER = \"1\"
DISABLE_ERROR_REPORTING = \"1\""
      ;;
    gemini*)
      entry=$GEMINI_JS
      args=', "--acp"'
      mkdir -p "$home/.gemini"
      cat >"$home/.gemini/settings.json" <<'JSON'
{
  "privacy": { "usageStatisticsEnabled": false },
  "telemetry": { "enabled": false },
  "general": { "enableAutoUpdate": false, "enableAutoUpdateNotification": false },
  "security": { "auth": { "selectedType": "gemini-api-key" } }
}
JSON
      env="GOOGLE_GEMINI_BASE_URL = $(toml_string "http://127.0.0.1:$PORT")
GEMINI_API_KEY = \"test-not-a-key\"
GEMINI_CLI_TRUST_WORKSPACE = \"true\""
      ;;
  esac
  cat >"$rhome/agents.toml" <<TOML
[[agents]]
id = "$agent"
protocol = "acp"
command = ["bash", "-c", $(toml_string "$wrapper"), $(toml_string "$NODE"), $(toml_string "$entry")$args]
start_timeout = "60s"
silence_timeout = "60s"
[agents.env]
HOME = $(toml_string "$home")
XDG_CONFIG_HOME = $(toml_string "$home/.config")
XDG_CACHE_HOME = $(toml_string "$home/.cache")
XDG_DATA_HOME = $(toml_string "$home/.local/share")
NO_UPDATE_NOTIFIER = "1"
NO_PROXY = "127.0.0.1,localhost"
no_proxy = "127.0.0.1,localhost"
RADIUM_TEST_AGENTS = $(toml_string "$RUN_ID")
RADIUM_TEST_AGENT_ERR = $(toml_string "$dir/agent.err")
$env
TOML
}

# start_server DIR FILE CONTENT: starts the model server (its stdin a fifo
# this shell holds open, so it ends with this script whatever happens); sets
# PORT and SERVER_FD.
start_server() {
  local dir=$1 file=$2 content=$3
  mkfifo "$dir/server.ctl"
  MODEL_FILE=$file MODEL_CONTENT=$content MODEL_VIA=${MODEL_VIA:-files} \
    MODEL_FILE2=${MODEL_FILE2:-} MODEL_CONTENT2=${MODEL_CONTENT2:-} "$NODE" "$SERVER" <"$dir/server.ctl" >"$dir/server.out" 2>"$dir/server.log" &
  server_pids+=($!)
  exec {SERVER_FD}>"$dir/server.ctl"
  local i
  for i in $(seq 100); do
    # server.out is made by the server's shell once the fifo is open, which
    # may be after this first look: a missing file is "not yet" (sed's
    # error would end this script under set -e).
    PORT=""
    [ -f "$dir/server.out" ] && PORT=$(sed -n 's/^PORT \([0-9]*\)$/\1/p' "$dir/server.out")
    [ -n "$PORT" ] && return 0
    kill -0 "${server_pids[-1]}" 2>/dev/null || break
    sleep 0.1
  done
  cat "$dir/server.log" >&2
  die "the model server did not start (its log is above)"
}

stop_server() {
  exec {SERVER_FD}>&-
  local pid=${server_pids[-1]}
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

# show TITLE FILE: FILE's content, indented, under TITLE (or that it is empty).
show() {
  echo "--- $1 ($2)"
  if [ -s "$2" ]; then sed 's/^/    /' "$2" | cut -c1-2000; else echo "    (empty)"; fi
}

# verdict AGENT: with no failed check (the caller's `failures`), says AGENT
# passed and succeeds; else starts its report on stderr (the failed checks)
# and fails, for the caller to show what it kept, then show_agent_err.
verdict() {
  if [ ${#failures[@]} -eq 0 ]; then
    say "$1: passed"
    return 0
  fi
  {
    echo
    echo "=== $1: FAILED"
    local f
    for f in "${failures[@]}"; do echo "  - $f"; done
  } >&2
  return 1
}

# show_agent_err AGENT DIR: the last 80 lines of the agent's stderr, and the
# end of AGENT's report.
show_agent_err() {
  tail -n 80 "$2/agent.err" >"$2/agent.err.tail"
  show "agent stderr (last 80 lines)" "$2/agent.err.tail"
  echo "=== end of $1"
}

# What the agents would inherit from this shell and must not: other
# accounts, models and endpoints, proxies. IS_SANDBOX: when it is set but not
# to 1 (IS_SANDBOX=yes), Claude's adapter, running as root, asks Claude Code
# for --dangerously-skip-permissions, which Claude Code refuses unless it is 1:
# Claude Code exits and session/new fails ("Query closed before response
# received").
unset_env=()
for var in IS_SANDBOX CLAUDE_CODE_BUBBLEWRAP ANTHROPIC_AUTH_TOKEN ANTHROPIC_MODEL \
  ANTHROPIC_SMALL_FAST_MODEL ANTHROPIC_DEFAULT_SONNET_MODEL ANTHROPIC_DEFAULT_HAIKU_MODEL \
  ANTHROPIC_DEFAULT_OPUS_MODEL CLAUDE_CODE_USE_BEDROCK CLAUDE_CODE_USE_VERTEX \
  CLAUDE_CODE_OAUTH_TOKEN GOOGLE_API_KEY GOOGLE_GENAI_USE_VERTEXAI GOOGLE_CLOUD_PROJECT \
  GOOGLE_CLOUD_LOCATION GOOGLE_APPLICATION_CREDENTIALS GEMINI_MODEL \
  HTTP_PROXY HTTPS_PROXY ALL_PROXY http_proxy https_proxy all_proxy NODE_OPTIONS; do
  unset_env+=(-u "$var")
done

failed_agents=()

# run_bash: Claude Code runs `printf 'radium-line-%s\n' 1 2 3` with its Bash
# tool; rad chat's text output (what a user sees) must show the command and
# its three lines under the tool call.
run_bash() {
  local agent=claude-bash
  local dir=$TMP/$agent
  local ws=$dir/workspace
  mkdir -p "$ws"
  local failures=()
  fail() { failures+=("$*"); }
  MODEL_VIA=bash start_server "$dir" "$ws/unused.txt" ""
  write_config "$agent" "$dir"
  rad_homes+=("$dir/radium-home")
  : >"$dir/agent.err"
  say "$agent: rad chat (model server on port $PORT)"
  local rc=0
  (cd "$ws" && RADIUM_HOME=$dir/radium-home RADIUM_DAEMON_IDLE=60 \
    timeout -k 5 120 env "${unset_env[@]}" "$RAD" chat "$agent" --yes \
    --prompt "Print three lines with printf" \
    >"$dir/chat.out" 2>"$dir/rad.err" {SERVER_FD}>&-) || rc=$?
  [ "$rc" = 0 ] || fail "rad chat exited with code $rc"
  grep -qxF "  \$ printf 'radium-line-%s\\n' 1 2 3" "$dir/chat.out" \
    || fail "the command is not shown under the tool call"
  local n
  for n in 1 2 3; do
    grep -qxF "    radium-line-$n" "$dir/chat.out" || fail "the output line radium-line-$n is not shown"
  done
  grep -qF "Done: the command printed" "$dir/chat.out" || fail "the model's final answer is not shown"
  RADIUM_HOME=$dir/radium-home timeout 10 "$RAD" shutdown >/dev/null 2>&1 || true
  stop_server
  verdict "$agent" && return 0
  {
    show "rad chat stdout" "$dir/chat.out"
    show "rad chat stderr" "$dir/rad.err"
    show "model server log" "$dir/server.log"
    show_agent_err "$agent" "$dir"
  } >&2
  failed_agents+=("$agent")
}

# run_hunks AGENT: the agent (claude-hunks: Claude Code's Write tool;
# gemini-hunks: Gemini CLI's write_file) rewrites a 20-line file changing
# line 3 and line 17; at rad chat's permission question (stdin piped) the
# answer `h` reviews the two hunks: keep the first (y), reject the second (n).
# Exactly the first change must be on disk, the write line must name the
# hunk left out, and `rad undo --tag <tag>` must give the file back.
run_hunks() {
  local agent=$1
  local dir=$TMP/$agent
  local ws=$dir/workspace
  mkdir -p "$ws"
  local failures=()
  fail() { failures+=("$*"); }
  local file=$ws/prices.txt
  seq -f 'line %g' 1 20 >"$file"
  local original new kept
  original=$(cat "$file")
  new=$(sed -e 's/^line 3$/line 3 changed/' -e 's/^line 17$/line 17 changed/' "$file")
  kept=$(sed -e 's/^line 3$/line 3 changed/' "$file")
  start_server "$dir" "$file" "$new"$'\n'
  write_config "$agent" "$dir"
  rad_homes+=("$dir/radium-home")
  : >"$dir/agent.err"
  say "$agent: rad chat, answers piped (model server on port $PORT)"
  local rc=0
  (cd "$ws" && printf '%s\n' "Change lines 3 and 17 of prices.txt" h y n \
    | RADIUM_HOME=$dir/radium-home RADIUM_DAEMON_IDLE=60 \
      timeout -k 5 120 env "${unset_env[@]}" "$RAD" chat "$agent" \
      >"$dir/chat.out" 2>"$dir/rad.err" {SERVER_FD}>&-) || rc=$?
  [ "$rc" = 0 ] || fail "rad chat exited with code $rc"
  grep -qF "[y/N/h: review hunks]" "$dir/rad.err" || fail "the question does not offer h (review hunks)"
  grep -qF "Keep hunk 2 of 2 of prices.txt? [y/n]" "$dir/rad.err" || fail "the second hunk was not asked about"
  grep -qxF "+line 3 changed" "$dir/chat.out" || fail "the first hunk is not drawn"
  grep -qxF "+line 17 changed" "$dir/chat.out" || fail "the second hunk is not drawn"
  grep -qF "prices.txt; rejected hunks left out: 2]" "$dir/chat.out" || fail "the write does not name the hunk left out"
  [ "$(cat "$file")" = "$kept" ] || fail "prices.txt is not the first hunk alone: $(tr '\n' '|' <"$file")"
  local tag
  tag=$(sed -n 's/^\[tag: \(.*\)\]$/\1/p' "$dir/chat.out" | tail -n 1)
  if [ -z "$tag" ]; then
    fail "rad chat printed no tag"
  else
    (cd "$ws" && RADIUM_HOME=$dir/radium-home timeout 30 "$RAD" undo --tag "$tag" \
      >"$dir/undo.out" 2>"$dir/undo.err") || fail "rad undo --tag $tag failed"
    [ "$(cat "$file")" = "$original" ] || fail "after undo prices.txt is not the original: $(tr '\n' '|' <"$file")"
  fi
  RADIUM_HOME=$dir/radium-home timeout 10 "$RAD" shutdown >/dev/null 2>&1 || true
  stop_server
  verdict "$agent" && return 0
  {
    show "rad chat stdout" "$dir/chat.out"
    show "rad chat stderr" "$dir/rad.err"
    show "model server log" "$dir/server.log"
    [ -f "$dir/undo.err" ] && show "rad undo stderr" "$dir/undo.err"
    show_agent_err "$agent" "$dir"
  } >&2
  failed_agents+=("$agent")
}

# run AGENT: the whole test of one agent; failures are collected, then shown.
run() {
  local agent=$1
  local dir=$TMP/$agent
  local ws=$dir/workspace
  mkdir -p "$ws"
  local file=$ws/notes.txt
  printf 'hello\n' >"$file"
  local new="hello from $agent through radium"$'\n'
  local failures=()
  fail() { failures+=("$*"); }

  # claude-mcp: Claude Code edits through radium's MCP server (`rad mcp`,
  # which the session offers it), not with its own file tools.
  local via=files
  [ "$agent" = claude-mcp ] && via=mcp
  MODEL_VIA=$via start_server "$dir" "$file" "$new"
  write_config "$agent" "$dir"
  rad_homes+=("$dir/radium-home")
  : >"$dir/agent.err"

  say "$agent: rad chat (model server on port $PORT)"
  local t0 t1 rc=0
  t0=$(date +%s%N)
  (cd "$ws" && RADIUM_HOME=$dir/radium-home RADIUM_DAEMON_IDLE=60 \
    timeout -k 5 120 env "${unset_env[@]}" "$RAD" chat "$agent" --json --yes \
    --prompt "Replace the whole content of notes.txt with: hello from $agent through radium" \
    >"$dir/events.jsonl" 2>"$dir/rad.err" {SERVER_FD}>&-) || rc=$?
  t1=$(date +%s%N)
  local secs
  secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
  say "$agent: rad chat exited with $rc after ${secs}s"
  case $rc in
    0) ;;
    124 | 137) fail "rad chat did not finish within 120 s" ;;
    *) fail "rad chat exited with code $rc" ;;
  esac

  # The agent must be gone once rad chat has exited (radium ends its process group).
  local left="" i
  for i in $(seq 30); do
    left=$(marked_pids)
    [ -z "$left" ] && break
    sleep 0.1
  done
  if [ -n "$left" ]; then
    fail "agent processes were still running 3 s after rad chat exited: $(reap | tr '\n' ' ')"
  fi

  local events=$dir/events.jsonl
  if [ ! -s "$events" ]; then
    fail "rad chat printed no events"
  elif ! jq . "$events" >/dev/null 2>&1; then
    fail "rad chat's output is not one JSON event a line"
  else
    count() { jq -s "[.[] | select($1)] | length" "$events"; }
    [ "$(count '.type == "text" and (.text | length) > 0')" -ge 1 ] \
      || fail "no text event (with text) from the agent"
    [ "$(count '.type == "permission"')" -ge 1 ] \
      || fail "no permission event: the agent asked nothing before writing"
    [ "$(count '.type == "permission_decided" and .allowed == true')" -ge 1 ] \
      || fail "no permission_decided event with allowed true (rad chat --yes allows every request)"
    # What the write changes reaches the door by the time it is asked (in the
    # tool call, an update, or the request itself), so it is drawn first.
    if [ "$agent" != claude-mcp ]; then
      [ "$(jq -s --arg new "$new" '(map(.type) | index("permission")) as $p
        | if $p == null then false else .[0:($p + 1)]
          | any(.[]; any((.diffs // [])[], (.tool_call.diffs // [])[]; .new_text == $new)) end' "$events")" = true ] \
        || fail "the diff of notes.txt was not in any event up to the permission request"
    fi
    [ "$(count '.type == "permission_decided" and .allowed != true')" -eq 0 ] \
      || fail "a permission was rejected: $(jq -c 'select(.type == "permission_decided" and .allowed != true)' "$events")"
    [ "$(count '.type == "error"')" -eq 0 ] \
      || fail "error events: $(jq -c 'select(.type == "error")' "$events")"
    [ "$(count '.type == "write_refused"')" -eq 0 ] \
      || fail "refused writes: $(jq -c 'select(.type == "write_refused")' "$events")"
    if [ "$agent" = claude-mcp ]; then
      # The edit came through radium's MCP server: the session reports it.
      [ "$(count ".type == \"write\" and .by == \"mcp\" and .path == \"notes.txt\"")" -ge 1 ] \
        || fail "no write event by mcp for notes.txt (the edit did not go through rad mcp)"
      [ "$(count '.type == "tool_call" and (.title // "" | test("__radium__str_replace$"))')" -ge 1 ] \
        || fail "no tool_call event for radium's str_replace"
      # Recorded once: not again as the agent's own write (one undo step
      # holding the same change twice could not be undone).
      [ "$(count '.type == "write" and .by == "agent"')" -eq 0 ] \
        || fail "the edit through rad mcp was recorded again as the agent's own write: $(jq -c 'select(.type == "write")' "$events")"
    fi
    if [ "$agent" = gemini ]; then
      # Gemini CLI writes through the client: radium's own edit, with its tag.
      [ "$(count ".type == \"write\" and .path == $(toml_string "$file")")" -ge 1 ] \
        || fail "no write event for $file (Gemini CLI writes through fs/write_text_file)"
    fi
    local ends
    ends=$(count '.type == "turn_end"')
    if [ "$ends" -ne 1 ]; then
      fail "expected one turn_end event, got $ends"
    else
      local stop
      stop=$(jq -r 'select(.type == "turn_end") | .stop_reason' "$events")
      [ "$stop" = end_turn ] || fail "turn_end.stop_reason is '$stop', not end_turn"
      jq -e 'select(.type == "turn_end") | .text | contains("Done:")' "$events" >/dev/null \
        || fail "turn_end.text lacks the model's final answer ('Done: ...')"
    fi
  fi
  local tag=""
  if [ -s "$events" ]; then
    tag=$(jq -r 'select(.type == "turn_end") | .tag // empty' "$events" 2>/dev/null | tail -n 1) || tag=""
  fi
  [ -n "$tag" ] || fail "no tag in turn_end (the tag after the agent's writes): radium recorded none of them, so nothing can undo them"

  if [ "$(cat "$file"; echo x)" = "${new}x" ]; then
    :
  else
    fail "notes.txt does not hold the new content after the turn: $(jq -Rs . <"$file")"
  fi

  if [ -n "$tag" ]; then
    local urc=0
    (cd "$ws" && RADIUM_HOME=$dir/radium-home RADIUM_DAEMON_IDLE=60 \
      timeout -k 5 30 "$RAD" undo --tag "$tag" >"$dir/undo.out" 2>"$dir/undo.err" {SERVER_FD}>&-) || urc=$?
    [ "$urc" = 0 ] || fail "rad undo --tag $tag exited with $urc: $(cat "$dir/undo.err")"
    if [ "$(cat "$file"; echo x)" != "hello"$'\n'"x" ]; then
      fail "after rad undo --tag $tag, notes.txt is $(jq -Rs . <"$file"), not \"hello\\n\""
    fi
  else
    fail "rad undo --tag could not be run (no tag), so the write was not taken back"
  fi
  if [ "$agent" = claude ]; then
    # rad agents check starts the agent for real: it starts here, and with
    # IS_SANDBOX=yes it does not, and says why.
    local crc=0
    (cd "$ws" && RADIUM_HOME=$dir/radium-home timeout -k 5 90 env "${unset_env[@]}" \
      "$RAD" agents check claude >"$dir/check.out" 2>"$dir/check.err" {SERVER_FD}>&-) || crc=$?
    [ "$crc" = 0 ] || fail "rad agents check claude exited with $crc: $(cat "$dir/check.out" "$dir/check.err")"
    grep -qx 'claude: OK' "$dir/check.out" || fail "rad agents check claude did not say OK: $(cat "$dir/check.out")"
    crc=0
    (cd "$ws" && RADIUM_HOME=$dir/radium-home timeout -k 5 90 env "${unset_env[@]}" IS_SANDBOX=yes \
      "$RAD" agents check claude >"$dir/sandbox.out" 2>"$dir/sandbox.err" {SERVER_FD}>&-) || crc=$?
    [ "$crc" = 1 ] || fail "IS_SANDBOX=yes rad agents check claude exited with $crc, not 1: $(cat "$dir/sandbox.out" "$dir/sandbox.err")"
    grep -q 'claude: FAILED' "$dir/sandbox.out" \
      && grep -q 'Query closed before response received' "$dir/sandbox.out" \
      && grep -q 'hint: IS_SANDBOX is set' "$dir/sandbox.out" \
      || fail "IS_SANDBOX=yes rad agents check claude did not name the reason and the hint: $(cat "$dir/sandbox.out")"
  fi
  if [ "$agent" = claude ]; then
    # A cancel, then two prompts in the same session (through rad's daemon):
    # each answer lands under its prompt. A home of its own (the daemon
    # `rad undo` started there has this shell's environment).
    local chome=$dir/radium-home-chat
    mkdir -p "$chome"
    cp "$dir/radium-home/agents.toml" "$chome/"
    rad_homes+=("$chome")
    local sock=$chome/daemon.sock
    (cd "$ws" && RADIUM_HOME=$chome exec env "${unset_env[@]}" "$RAD" daemon --idle 180 \
      >"$dir/daemon.out" 2>"$dir/daemon.err" {SERVER_FD}>&-) &
    for i in $(seq 100); do [ -S "$sock" ] && break; sleep 0.1; done
    local drc=0
    timeout -k 5 300 "$NODE" tests/agents/cancel-then-prompt.mjs "$sock" "$ws" claude \
      >"$dir/cancel.out" 2>"$dir/cancel.err" {SERVER_FD}>&- || drc=$?
    [ "$drc" = 0 ] || fail "after a cancel, an answer did not land under its prompt: $(cat "$dir/cancel.err")"
    RADIUM_HOME=$chome timeout 10 "$RAD" shutdown >/dev/null 2>&1 || true
  fi
  RADIUM_HOME=$dir/radium-home timeout 10 "$RAD" shutdown >/dev/null 2>&1 || true

  stop_server
  say "$agent: model server requests: $(grep -c ' #[0-9]' "$dir/server.log" || true)"

  if [ ${#failures[@]} -eq 0 ]; then
    say "$agent: passed (${secs}s)"
    return 0
  fi
  {
    echo
    echo "=== $agent: FAILED"
    local f
    for f in "${failures[@]}"; do echo "  - $f"; done
    show "events (rad chat --json)" "$events"
    show "rad chat stderr" "$dir/rad.err"
    show "model server log" "$dir/server.log"
    tail -n 80 "$dir/agent.err" >"$dir/agent.err.tail"
    show "agent stderr (last 80 lines)" "$dir/agent.err.tail"
    [ -f "$dir/undo.out" ] && show "rad undo stdout" "$dir/undo.out"
    [ -f "$dir/undo.err" ] && show "rad undo stderr" "$dir/undo.err"
    [ -f "$dir/check.out" ] && show "rad agents check stdout" "$dir/check.out"
    [ -f "$dir/sandbox.out" ] && show "IS_SANDBOX=yes rad agents check stdout" "$dir/sandbox.out"
    [ -f "$dir/cancel.out" ] && show "cancel, then prompts (events)" "$dir/cancel.out"
    [ -f "$dir/cancel.err" ] && show "cancel, then prompts (stderr)" "$dir/cancel.err"
    echo "=== end of $agent"
  } >&2
  failed_agents+=("$agent")
}

# run_hooks: a user extension's before_tool hook refuses any command
# starting with `ls`. Claude Code runs `ls` without a permission request, so
# only the PreToolUse hook radium adds for the session can stop it: rad chat
# (text) must show the refusal by the hook and no listing; then `echo`, which
# the hook lets through, must run and its output be shown.
run_hooks() {
  local agent=claude-hooks
  local dir=$TMP/$agent
  local ws=$dir/workspace
  mkdir -p "$ws"
  printf 'x\n' >"$ws/radium-listed-file.txt"
  local failures=()
  fail() { failures+=("$*"); }
  rad_homes+=("$dir/radium-home")
  local ext=$dir/radium-home/extensions/no-ls
  mkdir -p "$ext/hooks"
  printf '{"name": "no-ls", "version": "1.0.0", "description": "no ls", "components": {"hooks": ["hooks/*.toml"]}}\n' \
    >"$ext/radium-extension.json"
  printf '[[hooks]]\nname = "no-ls"\ntype = "before_tool"\nscript = "no-ls.sh"\n' >"$ext/hooks/no-ls.toml"
  # The context on stdin; its `arguments` hold the command (compact JSON).
  cat >"$ext/no-ls.sh" <<'SH'
#!/usr/bin/env bash
input=$(cat)
printf '%s\n' "$input" >>"$(dirname "$0")/seen.jsonl"
if printf '%s' "$input" | grep -q '"command":"ls'; then
  echo "no ls in this project" >&2
  exit 2
fi
SH
  chmod +x "$ext/no-ls.sh"
  local cmd rc
  for cmd in ls echo; do
    local out=$dir/chat-$cmd.out
    if [ "$cmd" = ls ]; then
      MODEL_COMMAND='ls' MODEL_VIA=bash start_server "$dir" "$ws/unused.txt" ""
    else
      MODEL_COMMAND='echo radium-echo-ran' MODEL_VIA=bash start_server "$dir" "$ws/unused.txt" ""
    fi
    write_config "$agent" "$dir"
    : >"$dir/agent.err"
    say "$agent: rad chat, $cmd (model server on port $PORT)"
    rc=0
    (cd "$ws" && RADIUM_HOME=$dir/radium-home RADIUM_DAEMON_IDLE=60 \
      timeout -k 5 120 env "${unset_env[@]}" "$RAD" chat "$agent" \
      --prompt "Run a command" >"$out" 2>"$dir/rad-$cmd.err" {SERVER_FD}>&-) || rc=$?
    [ "$rc" = 0 ] || fail "$cmd: rad chat exited with code $rc"
    stop_server
    rm -f "$dir/server.ctl"
    mv "$dir/server.log" "$dir/server-$cmd.log"
  done
  grep -qF "[permission] rejected by hook:no-ls: no ls in this project" "$dir/chat-ls.out" \
    || fail "ls: the hook's refusal is not shown"
  grep -qF "radium-listed-file.txt" "$dir/chat-ls.out" \
    && fail "ls: the listing is shown: ls ran despite the hook"
  grep -qF "failed:" "$dir/chat-ls.out" || fail "ls: the model did not get the refusal"
  grep -qxF "    radium-echo-ran" "$dir/chat-echo.out" || fail "echo: its output is not shown (it did not run)"
  grep -qF "[permission] rejected" "$dir/chat-echo.out" && fail "echo: refused"
  grep -q '"via":"pre_tool_use"' "$ext/seen.jsonl" 2>/dev/null \
    || fail "the hook never saw a call through the PreToolUse relay"
  RADIUM_HOME=$dir/radium-home timeout 10 "$RAD" shutdown >/dev/null 2>&1 || true
  verdict "$agent" && return 0
  {
    show "rad chat stdout (ls)" "$dir/chat-ls.out"
    show "rad chat stderr (ls)" "$dir/rad-ls.err"
    show "rad chat stdout (echo)" "$dir/chat-echo.out"
    show "rad chat stderr (echo)" "$dir/rad-echo.err"
    show "what the hook saw" "$ext/seen.jsonl"
    show "model server log (ls)" "$dir/server-ls.log"
    show_agent_err "$agent" "$dir"
  } >&2
  failed_agents+=("$agent")
}

# run_turn: Claude Code writes a.txt and b.txt in one turn; the turn is one
# undo step (rad undo --tag, rad redo --tag), and rad rewind <tag_before>
# restores both files to before the prompt, after a dry run that lists them.
run_turn() {
  local agent=claude-turn
  local dir=$TMP/$agent
  local ws=$dir/workspace
  mkdir -p "$ws"
  printf 'alpha\n' >"$ws/a.txt"
  printf 'beta\n' >"$ws/b.txt"
  local failures=()
  fail() { failures+=("$*"); }
  # holds FILE CONTENT: whether FILE holds exactly CONTENT.
  holds() { [ "$(cat "$1"; echo x)" = "$2x" ]; }
  # in_ws OUT ERR RAD-ARGS...: rad in the workspace, with this run's home.
  in_ws() {
    local out=$1 err=$2
    shift 2
    (cd "$ws" && RADIUM_HOME=$dir/radium-home RADIUM_DAEMON_IDLE=60 \
      timeout -k 5 30 "$RAD" "$@" >"$out" 2>"$err" {SERVER_FD}>&-)
  }
  MODEL_FILE2=$ws/b.txt MODEL_CONTENT2=$'beta changed by claude\n' \
    start_server "$dir" "$ws/a.txt" $'alpha changed by claude\n'
  write_config "$agent" "$dir"
  rad_homes+=("$dir/radium-home")
  : >"$dir/agent.err"
  say "$agent: rad chat (model server on port $PORT)"
  local rc=0
  local events=$dir/events.jsonl
  (cd "$ws" && RADIUM_HOME=$dir/radium-home RADIUM_DAEMON_IDLE=60 \
    timeout -k 5 120 env "${unset_env[@]}" "$RAD" chat "$agent" --json --yes \
    --prompt "Change a.txt and b.txt" \
    >"$events" 2>"$dir/rad.err" {SERVER_FD}>&-) || rc=$?
  [ "$rc" = 0 ] || fail "rad chat exited with code $rc"
  holds "$ws/a.txt" $'alpha changed by claude\n' || fail "a.txt was not written: $(jq -Rs . <"$ws/a.txt")"
  holds "$ws/b.txt" $'beta changed by claude\n' || fail "b.txt was not written: $(jq -Rs . <"$ws/b.txt")"
  local tag before
  tag=$(jq -r 'select(.type == "turn_end") | .tag // empty' "$events" 2>/dev/null | tail -n 1) || tag=""
  before=$(jq -r 'select(.type == "turn_end") | .tag_before // empty' "$events" 2>/dev/null | tail -n 1) || before=""
  [ -n "$tag" ] && [ -n "$before" ] || fail "turn_end lacks tag or tag_before"
  if [ -n "$tag" ] && [ -n "$before" ]; then
    in_ws "$dir/undo.out" "$dir/undo.err" undo --tag "$tag" || fail "rad undo --tag exited non-zero: $(cat "$dir/undo.err")"
    holds "$ws/a.txt" $'alpha\n' && holds "$ws/b.txt" $'beta\n' \
      || fail "one rad undo --tag did not take the whole turn back: a.txt $(jq -Rs . <"$ws/a.txt"), b.txt $(jq -Rs . <"$ws/b.txt")"
    local undone
    undone=$(sed -n 's/^\[tag: \(.*\)\]$/\1/p' "$dir/undo.out")
    in_ws "$dir/redo.out" "$dir/redo.err" redo --tag "$undone" || fail "rad redo --tag exited non-zero: $(cat "$dir/redo.err")"
    holds "$ws/a.txt" $'alpha changed by claude\n' && holds "$ws/b.txt" $'beta changed by claude\n' \
      || fail "one rad redo --tag did not bring the whole turn back"
    in_ws "$dir/dry.out" "$dir/dry.err" rewind "$before" --dry-run || fail "rad rewind --dry-run exited non-zero: $(cat "$dir/dry.err")"
    grep -q '"a.txt"' "$dir/dry.out" && grep -q '"b.txt"' "$dir/dry.out" \
      || fail "rad rewind --dry-run does not list both files: $(cat "$dir/dry.out")"
    holds "$ws/a.txt" $'alpha changed by claude\n' || fail "rad rewind --dry-run changed a.txt"
    in_ws "$dir/rewind.out" "$dir/rewind.err" rewind "$before" || fail "rad rewind exited non-zero: $(cat "$dir/rewind.err")"
    holds "$ws/a.txt" $'alpha\n' && holds "$ws/b.txt" $'beta\n' \
      || fail "rad rewind <tag_before> did not restore both files to before the prompt"
  fi
  RADIUM_HOME=$dir/radium-home timeout 10 "$RAD" shutdown >/dev/null 2>&1 || true
  stop_server
  verdict "$agent" && return 0
  {
    show "events (rad chat --json)" "$events"
    show "rad chat stderr" "$dir/rad.err"
    show "model server log" "$dir/server.log"
    local out
    for out in undo redo dry rewind; do
      [ -f "$dir/$out.out" ] && show "rad $out stdout" "$dir/$out.out"
      [ -f "$dir/$out.err" ] && show "rad $out stderr" "$dir/$out.err"
    done
    show_agent_err "$agent" "$dir"
  } >&2
  failed_agents+=("$agent")
}

# run_acp CASE (acp-claude, acp-gemini): see the top.
run_acp() {
  local case=$1 agent=${1#acp-}
  local dir=$TMP/$case
  local ws=$dir/workspace
  mkdir -p "$ws"
  printf 'alpha\n' >"$ws/a.txt"
  printf 'beta\n' >"$ws/b.txt"
  local failures=()
  fail() { failures+=("$*"); }
  local sdk
  sdk=$(bash scripts/ensure-acp-sdk.sh | sed -n 's/^sdk_modules=//p') || die "the ACP SDK could not be installed"
  if [ "$agent" = claude ]; then
    MODEL_FILE2=$ws/b.txt MODEL_CONTENT2=$'beta changed\n' start_server "$dir" "$ws/a.txt" $'alpha changed\n'
  else
    start_server "$dir" "$ws/a.txt" $'alpha changed\n'
  fi
  write_config "$agent" "$dir"
  rad_homes+=("$dir/radium-home")
  : >"$dir/agent.err"
  say "$case: rad acp $agent driven by the ACP SDK (model server on port $PORT)"
  local rc=0 out=$dir/editor.jsonl drive=$PWD/tests/acp-proxy/drive.mjs
  (cd "$ws" && RADIUM_HOME=$dir/radium-home RADIUM_DAEMON_IDLE=60 ACP_SDK_MODULES=$sdk \
    WATCH="$ws/a.txt,$ws/b.txt" timeout -k 5 240 env "${unset_env[@]}" "$NODE" \
    "$drive" "$RAD" "$agent" "Change a.txt and b.txt" /changes /undo /redo "/rewind 1" \
    >"$out" 2>"$dir/rad.err" {SERVER_FD}>&-) || rc=$?
  [ "$rc" = 0 ] || fail "the editor (drive.mjs) exited with code $rc"
  # at N FILTER: jq FILTER on the answer line of the N-th prompt (1-based).
  at() { jq -rs --argjson n "$1" "[.[] | select(.prompt)] | .[\$n - 1] | $2" "$out" 2>/dev/null; }
  local a=$ws/a.txt b=$ws/b.txt
  [ "$(at 1 .stopReason)" = end_turn ] || fail "the turn did not end with end_turn: $(at 1 .)"
  [ -n "$(at 1 .text)" ] || fail "no text streamed to the editor during the turn"
  [ "$(at 1 "(.commands | index(\"undo\")) != null")" = true ] || fail "radium's /undo is not in the editor's command list: $(at 1 .commands)"
  [ "$(at 1 ".files[\"$a\"]")" = "alpha changed" ] || fail "a.txt was not written: $(at 1 .files)"
  if [ "$agent" = claude ]; then
    [ "$(at 1 .permissions)" -ge 1 ] 2>/dev/null || fail "the editor was not asked permission for the edit"
    [ "$(at 1 ".files[\"$b\"]")" = "beta changed" ] || fail "b.txt was not written: $(at 1 .files)"
  fi
  at 2 .text | grep -q '^+alpha changed' || fail "/changes does not show the diff: $(at 2 .text)"
  [ "$(at 3 ".files[\"$a\"]")" = alpha ] && [ "$(at 3 ".files[\"$b\"]")" = beta ] \
    || fail "/undo did not take the turn back: $(at 3 .)"
  [ "$(at 4 ".files[\"$a\"]")" = "alpha changed" ] || fail "/redo did not bring the turn back: $(at 4 .)"
  [ "$(at 5 ".files[\"$a\"]")" = alpha ] && [ "$(at 5 ".files[\"$b\"]")" = beta ] \
    || fail "/rewind 1 did not restore the files: $(at 5 .)"
  [ "$(jq -r 'select(.exit != null) | .exit' "$out" 2>/dev/null)" = 0 ] || fail "rad acp did not exit 0 when the editor closed stdin"
  [ "$(grep -c 'command /' "$dir/server.log" 2>/dev/null || true)" = 0 ] || fail "a radium command reached the model"
  stop_server
  if [ "$agent" = claude ]; then
    # A before_tool hook (a user extension) refuses any call naming b.txt:
    # the editor is asked about a.txt only, b.txt stays as it was.
    local hdir=$dir/hooked hws=$dir/hooked/workspace
    mkdir -p "$hws"
    printf 'alpha\n' >"$hws/a.txt"
    printf 'beta\n' >"$hws/b.txt"
    local ext=$hdir/radium-home/extensions/no-b
    mkdir -p "$ext/hooks"
    printf '{"name": "no-b", "version": "1.0.0", "description": "no b.txt", "components": {"hooks": ["hooks/*.toml"]}}\n' >"$ext/radium-extension.json"
    printf '[[hooks]]\nname = "no-b"\ntype = "before_tool"\nscript = "no-b.sh"\n' >"$ext/hooks/no-b.toml"
    printf '#!/bin/sh\nif grep -q "b\\.txt"; then echo "b.txt is not to be touched" >&2; exit 2; fi\n' >"$ext/no-b.sh"
    chmod +x "$ext/no-b.sh"
    MODEL_FILE2=$hws/b.txt MODEL_CONTENT2=$'beta changed\n' start_server "$hdir" "$hws/a.txt" $'alpha changed\n'
    write_config "$agent" "$hdir"
    rad_homes+=("$hdir/radium-home")
    : >"$hdir/agent.err"
    say "$case: a before_tool hook refusing b.txt (model server on port $PORT)"
    local hout=$hdir/editor.jsonl
    rc=0
    (cd "$hws" && RADIUM_HOME=$hdir/radium-home RADIUM_DAEMON_IDLE=60 ACP_SDK_MODULES=$sdk \
      WATCH="$hws/a.txt,$hws/b.txt" timeout -k 5 240 env "${unset_env[@]}" "$NODE" \
      "$drive" "$RAD" "$agent" "Change a.txt and b.txt" \
      >"$hout" 2>"$hdir/rad.err" {SERVER_FD}>&-) || rc=$?
    [ "$rc" = 0 ] || fail "hooked: the editor (drive.mjs) exited with code $rc"
    local hline
    hline=$(jq -c 'select(.prompt)' "$hout" 2>/dev/null | head -n 1)
    [ "$(jq -r '.files["'"$hws"'/b.txt"]' <<<"$hline")" = beta ] || fail "hooked: b.txt was changed despite the hook: $hline"
    [ "$(jq -r '.files["'"$hws"'/a.txt"]' <<<"$hline")" = "alpha changed" ] || fail "hooked: a.txt was not written: $hline"
    jq -r '.text' <<<"$hline" | grep -q "the before_tool hook \`no-b\` refused it: b.txt is not to be touched" \
      || fail "hooked: the hook's refusal is not in the agent's answer: $hline"
    [ "$(jq -r '.permissions' <<<"$hline")" = 1 ] || fail "hooked: the editor was not asked exactly once (a.txt only): $hline"
    stop_server
    [ ${#failures[@]} -eq 0 ] || { show "hooked: editor lines" "$hout"; show "hooked: rad acp stderr" "$hdir/rad.err"; } >&2
  fi
  verdict "$case" && return 0
  {
    show "editor lines (drive.mjs)" "$out"
    show "rad acp stderr" "$dir/rad.err"
    show "model server log" "$dir/server.log"
    show_agent_err "$case" "$dir"
  } >&2
  failed_agents+=("$case")
}

# run_nvim (claude-nvim): see tests/agents/nvim-unsaved.sh.
source tests/agents/nvim-unsaved.sh
# run_nvim_exit (claude-nvim-exit): see tests/agents/nvim-exit.sh.
source tests/agents/nvim-exit.sh
# run_nvim_list (claude-nvim-list): see tests/agents/nvim-list.sh.
source tests/agents/nvim-list.sh
# run_gemini_resume, run_gemini_modes, run_gemini_commands: see
# tests/agents/gemini-cases.sh.
source tests/agents/gemini-cases.sh
# run_acp_load (acp-claude-load, acp-claude-resume): see tests/agents/acp-load.sh.
source tests/agents/acp-load.sh
# run_acp_mcp (acp-claude-mcp): see tests/agents/acp-mcp.sh.
source tests/agents/acp-mcp.sh
# run_modes: Claude Code's modes and models through rad chat (see the top).
run_modes() {
  local agent=claude-modes
  local dir=$TMP/$agent
  local ws=$dir/workspace
  mkdir -p "$ws"
  local failures=()
  fail() { failures+=("$*"); }
  local file=$ws/notes.txt
  printf 'hello\n' >"$file"
  start_server "$dir" "$file" "changed in plan mode"$'\n'
  write_config "$agent" "$dir"
  rad_homes+=("$dir/radium-home")
  : >"$dir/agent.err"
  chat() {
    local name=$1
    shift
    local rc=0
    (cd "$ws" && RADIUM_HOME=$dir/radium-home RADIUM_DAEMON_IDLE=60 \
      timeout -k 5 120 env "${unset_env[@]}" "$RAD" chat "$agent" "$@" \
      >"$dir/$name.out" 2>"$dir/$name.err" {SERVER_FD}>&-) || rc=$?
    [ "$rc" = 0 ] || fail "rad chat $* exited with code $rc"
  }
  say "$agent: rad chat /model and /mode (model server on port $PORT)"
  printf '/model\n/mode\n' | chat list
  local current other
  current=$(sed -n 's/^\* \([^ ]*\).*/\1/p' "$dir/list.out" | head -n 1)
  # The last model listed before the modes that is not the current one (the
  # adapter lists default, sonnet[1m], opus[1m], haiku: haiku's request
  # carries a model id of its own, claude-haiku-...).
  other=$(sed '/^[ *] default (Default)/,$d' "$dir/list.out" | sed -n 's/^  \([^ ]*\).*/\1/p' | tail -n 1)
  [ -n "$current" ] && [ -n "$other" ] || fail "/model did not list the models with the current one marked"
  grep -qE '^[ *] plan( |$)' "$dir/list.out" || fail "/mode does not list plan"
  grep -qF "rad chat: $agent · mode " "$dir/list.err" || fail "the header line does not say the mode"
  # Reasoning effort: /effort lists the adapter's thought_level values (the
  # current one marked) and --effort sets one; an adapter without them
  # (claude-agent-acp 0.23.1 offers mode and model only) is said so, and
  # --effort is refused before the prompt (exit 1).
  say "$agent: /effort and --effort"
  printf '/effort\n' | chat effort
  local effort
  effort=$(sed -n 's/^  \([^ ]*\).*/\1/p' "$dir/effort.out" | head -n 1)
  if grep -q '^\* ' "$dir/effort.out" && [ -n "$effort" ]; then
    chat effortset --effort "$effort" --prompt "chat: which effort"
    grep -qF "effort $effort" "$dir/effortset.err" || fail "the header line does not say effort $effort after --effort"
  else
    grep -qF "the agent offers no reasoning effort to choose" "$dir/effort.out" \
      || fail "/effort neither listed efforts nor said there are none: $(jq -Rs . <"$dir/effort.out")"
    local rc=0
    (cd "$ws" && RADIUM_HOME=$dir/radium-home RADIUM_DAEMON_IDLE=60 \
      timeout -k 5 120 env "${unset_env[@]}" "$RAD" chat "$agent" --effort high --prompt "chat: effort" \
      >"$dir/effortset.out" 2>"$dir/effortset.err" {SERVER_FD}>&-) || rc=$?
    [ "$rc" = 1 ] || fail "--effort high with an agent without efforts exited with code $rc, not 1"
    grep -qF -- "--effort high: " "$dir/effortset.err" || fail "--effort high was not refused by name: $(jq -Rs . <"$dir/effortset.err")"
  fi
  if [ -n "$other" ]; then
    say "$agent: --model $other (the current one is $current)"
    local before
    before=$(wc -l <"$dir/server.log")
    chat model --model "$other" --prompt "chat: which model"
    grep -qF "pong: which model" "$dir/model.out" || fail "the turn with --model $other did not answer"
    tail -n +"$((before + 1))" "$dir/server.log" | grep ' model ' >"$dir/models.seen" || true
    local base=${other%%[*}
    grep -qF "$base" "$dir/models.seen" \
      || fail "the model server never received model $other: $(sort -u "$dir/models.seen" | tr '\n' ' ')"
  fi
  say "$agent: --mode plan, the model tries to write notes.txt"
  chat plan --mode plan --yes --json --prompt "Replace the whole content of notes.txt with: changed in plan mode"
  [ "$(cat "$file")" = hello ] || fail "notes.txt changed in plan mode: $(jq -Rs . <"$file")"
  jq -se 'any(.[]; .type == "permission_decided" and .by == "radium" and (.reason | test("plan mode")))' \
    "$dir/plan.out" >/dev/null 2>&1 || fail "the write was not refused by radium for the plan mode"
  grep -q '"type":"turn_end"' "$dir/plan.out" || fail "the plan-mode turn did not end"
  RADIUM_HOME=$dir/radium-home timeout 10 "$RAD" shutdown >/dev/null 2>&1 || true
  stop_server
  verdict "$agent" && return 0
  {
    local out
    for out in list effort effortset model plan; do
      [ -f "$dir/$out.out" ] && show "rad chat ($out) stdout" "$dir/$out.out"
      [ -f "$dir/$out.err" ] && show "rad chat ($out) stderr" "$dir/$out.err"
    done
    show "model server log" "$dir/server.log"
    show_agent_err "$agent" "$dir"
  } >&2
  failed_agents+=("$agent")
}

# run_usermcp: the user's own MCP server (from $RADIUM_HOME/mcp.toml) is
# passed to Claude Code, whose scripted model calls its write_marker tool:
# the marker file holds the prefix given as an argument and the text, and
# was written where the server's environment (MARKER_FILE) says.
run_usermcp() {
  local agent=claude-usermcp
  local dir=$TMP/$agent
  local ws=$dir/workspace
  mkdir -p "$ws"
  local failures=()
  fail() { failures+=("$*"); }
  local marker=$dir/marker.txt
  MODEL_VIA=usermcp start_server "$dir" "$ws/unused.txt" "from the user's server"
  write_config "$agent" "$dir"
  cat >"$dir/radium-home/mcp.toml" <<TOML
[[servers]]
name = "usertools"
command = [$(toml_string "$NODE"), $(toml_string "$PWD/tests/agents/user-mcp-server.mjs"), "--prefix", "marker: "]
[servers.env]
MARKER_FILE = $(toml_string "$marker")
RADIUM_TEST_AGENTS = $(toml_string "$RUN_ID")
TOML
  rad_homes+=("$dir/radium-home")
  : >"$dir/agent.err"
  (cd "$ws" && RADIUM_HOME=$dir/radium-home timeout 30 "$RAD" agents mcp >"$dir/list.out" 2>&1) \
    || fail "rad agents mcp exited non-zero"
  grep -qF "usertools (stdio): $NODE $PWD/tests/agents/user-mcp-server.mjs --prefix marker: " "$dir/list.out" \
    || fail "rad agents mcp does not list the server: $(cat "$dir/list.out")"
  say "$agent: rad chat (model server on port $PORT)"
  local rc=0
  (cd "$ws" && RADIUM_HOME=$dir/radium-home RADIUM_DAEMON_IDLE=60 \
    timeout -k 5 120 env "${unset_env[@]}" "$RAD" chat "$agent" --yes \
    --prompt "Write the marker with your usertools server" \
    >"$dir/chat.out" 2>"$dir/rad.err" {SERVER_FD}>&-) || rc=$?
  [ "$rc" = 0 ] || fail "rad chat exited with code $rc"
  if [ ! -f "$marker" ]; then
    fail "the user's MCP server wrote no marker"
  elif [ "$(cat "$marker")" != "marker: from the user's server" ]; then
    fail "the marker holds $(jq -Rs . <"$marker"), not \"marker: from the user's server\""
  fi
  grep -qF "Done: mcp__usertools__write_marker answered marker written" "$dir/chat.out" \
    || fail "the model's final answer (the tool's result) is not shown"
  RADIUM_HOME=$dir/radium-home timeout 10 "$RAD" shutdown >/dev/null 2>&1 || true
  stop_server
  verdict "$agent" && return 0
  {
    show "rad chat stdout" "$dir/chat.out"
    show "rad chat stderr" "$dir/rad.err"
    show "model server log" "$dir/server.log"
    show_agent_err "$agent" "$dir"
  } >&2
  failed_agents+=("$agent")
}

# run_resume: a turn, then the project's latest conversation continued in a
# new rad chat: Claude Code resumes its session, so the model server gets
# the earlier prompt with the new one (its `chat: recall` answer names it,
# and its message log holds it), and the earlier turn is printed once.
run_resume() {
  local agent=claude-resume
  local dir=$TMP/$agent
  local ws=$dir/workspace
  mkdir -p "$ws"
  local failures=()
  fail() { failures+=("$*"); }
  export MODEL_LOG_MESSAGES=$dir/messages.jsonl
  start_server "$dir" "$ws/unused.txt" ""
  unset MODEL_LOG_MESSAGES
  write_config "$agent" "$dir"
  rad_homes+=("$dir/radium-home")
  : >"$dir/agent.err"
  say "$agent: two rad chat runs, the second --continue (model server on port $PORT)"
  chat_run() {
    local out=$1
    shift
    local rc=0
    (cd "$ws" && RADIUM_HOME=$dir/radium-home RADIUM_DAEMON_IDLE=60 \
      timeout -k 5 120 env "${unset_env[@]}" "$RAD" chat "$agent" "$@" \
      >"$dir/$out.out" 2>"$dir/$out.err" {SERVER_FD}>&-) || rc=$?
    [ "$rc" = 0 ] || fail "rad chat $* exited with code $rc"
  }
  chat_run first --prompt "chat: apple tree"
  grep -qF "pong: apple tree" "$dir/first.out" || fail "the first turn's answer is not shown"
  chat_run list --list
  grep -qF "claude-resume  1 turn(s)" "$dir/list.out" || fail "rad chat --list does not list the first conversation"
  chat_run second --continue --prompt "chat: recall"
  grep -qF "the agent resumed its own session" "$dir/second.err" \
    || fail "the adapter did not resume its session (session/resume)"
  [ "$(grep -cF "pong: apple tree" "$dir/second.out")" = 1 ] \
    || fail "the earlier turn is not shown exactly once in the transcript"
  [ "$(grep -cxF "> chat: apple tree" "$dir/second.out")" = 1 ] \
    || fail "the earlier prompt is not shown exactly once in the transcript"
  grep -qF "recall: apple tree" "$dir/second.out" \
    || fail "the model was not sent the earlier turn (its answer does not recall it)"
  # The main loop's request of the second turn carries the first prompt.
  jq -e -s 'map(select(.tools > 0 and (.messages[-1].text | contains("chat: recall"))))
    | length > 0 and all(.messages | map(.text) | join("\n") | contains("chat: apple tree"))' \
    "$dir/messages.jsonl" >/dev/null \
    || fail "the model server's log has no request for the second turn holding the first prompt"
  RADIUM_HOME=$dir/radium-home timeout 10 "$RAD" shutdown >/dev/null 2>&1 || true
  stop_server
  verdict "$agent" && return 0
  {
    local out
    for out in first list second; do
      show "rad chat ($out) stdout" "$dir/$out.out"
      show "rad chat ($out) stderr" "$dir/$out.err"
    done
    show "model server log" "$dir/server.log"
    show "messages the model server received" "$dir/messages.jsonl"
    show_agent_err "$agent" "$dir"
  } >&2
  failed_agents+=("$agent")
}

# run_notice: the start's notices with Claude Code (see the top).
run_notice() {
  local agent=claude-notice
  local dir=$TMP/$agent
  local ws=$dir/workspace
  mkdir -p "$ws"
  local failures=()
  fail() { failures+=("$*"); }
  start_server "$dir" "$ws/unused.txt" ""
  write_config "$agent" "$dir"
  rad_homes+=("$dir/radium-home")
  printf 'this is [not toml\n' >"$dir/radium-home/mcp.toml"
  : >"$dir/agent.err"
  say "$agent: rad chat with a broken mcp.toml (model server on port $PORT)"
  local rc=0
  (cd "$ws" && RADIUM_HOME=$dir/radium-home timeout -k 5 120 env "${unset_env[@]}" "$RAD" chat "$agent" \
    </dev/null >"$dir/open.out" 2>"$dir/open.err" {SERVER_FD}>&-) || rc=$?
  [ "$rc" = 0 ] || fail "rad chat (no prompt) exited with code $rc"
  grep -qF "rad chat: notice: your MCP servers of a file were not passed" "$dir/open.err" \
    || fail "the start notice is not on screen before any prompt"
  rc=0
  (cd "$ws" && RADIUM_HOME=$dir/radium-home timeout -k 5 120 env "${unset_env[@]}" "$RAD" chat "$agent" \
    --prompt "chat: apple tree" >"$dir/turn.out" 2>"$dir/turn.err" {SERVER_FD}>&-) || rc=$?
  [ "$rc" = 0 ] || fail "rad chat --prompt exited with code $rc"
  grep -qF "pong: apple tree" "$dir/turn.out" || fail "the turn's answer is not shown"
  [ "$(grep -cF "were not passed" "$dir/turn.err")" = 1 ] || fail "the start notice is not said exactly once"
  stop_server
  verdict "$agent" && return 0
  {
    local out
    for out in open turn; do
      show "rad chat ($out) stdout" "$dir/$out.out"
      show "rad chat ($out) stderr" "$dir/$out.err"
    done
    show_agent_err "$agent" "$dir"
  } >&2
  failed_agents+=("$agent")
}

# run_flood: Claude Code streams 20,000 small text deltas (`chat: flood`):
# rad chat --json shows every number once, in order, in text events whose
# joined text is turn_end's text.
run_flood() {
  local agent=claude-flood
  local dir=$TMP/$agent
  local ws=$dir/workspace
  mkdir -p "$ws"
  local failures=()
  fail() { failures+=("$*"); }
  start_server "$dir" "$ws/unused.txt" ""
  write_config "$agent" "$dir"
  rad_homes+=("$dir/radium-home")
  : >"$dir/agent.err"
  say "$agent: rad chat, a flood of 20000 chunks (model server on port $PORT)"
  local rc=0
  local events=$dir/events.jsonl
  (cd "$ws" && RADIUM_HOME=$dir/radium-home timeout -k 5 180 env "${unset_env[@]}" "$RAD" chat "$agent" --json \
    --prompt "chat: flood 20000" >"$events" 2>"$dir/rad.err" {SERVER_FD}>&-) || rc=$?
  [ "$rc" = 0 ] || fail "rad chat exited with code $rc"
  local streamed ended expected
  streamed=$(jq -j 'select(.type == "text") | .text' "$events" 2>/dev/null) || streamed=""
  ended=$(jq -j 'select(.type == "turn_end") | .text' "$events" 2>/dev/null) || ended=""
  expected=$(seq 0 19999 | tr '\n' ' ')
  [ "$streamed" = "$expected" ] || fail "the streamed text is not the numbers 0 to 19999 in order ($(printf '%s' "$streamed" | wc -c) bytes)"
  [ "$ended" = "$expected" ] || fail "turn_end's text is not the numbers 0 to 19999 in order"
  stop_server
  verdict "$agent" && return 0
  {
    show "rad chat stderr" "$dir/rad.err"
    show "model server log" "$dir/server.log"
    show_agent_err "$agent" "$dir"
  } >&2
  failed_agents+=("$agent")
}

# run_list: the agent's own sessions (session/list) with Claude Code.
run_list() {
  local agent=claude-list
  local dir=$TMP/$agent
  local ws=$dir/workspace
  mkdir -p "$ws"
  local failures=()
  fail() { failures+=("$*"); }
  start_server "$dir" "$ws/unused.txt" ""
  write_config "$agent" "$dir"
  rad_homes+=("$dir/radium-home")
  : >"$dir/agent.err"
  say "$agent: a turn, radium's record of it removed, then --list and --resume agent:ID (model server on port $PORT)"
  chat_run() {
    local out=$1
    shift
    local rc=0
    (cd "$ws" && RADIUM_HOME=$dir/radium-home RADIUM_DAEMON_IDLE=60 \
      timeout -k 5 120 env "${unset_env[@]}" "$RAD" chat "$agent" "$@" \
      >"$dir/$out.out" 2>"$dir/$out.err" {SERVER_FD}>&-) || rc=$?
    [ "$rc" = 0 ] || fail "rad chat $* exited with code $rc"
  }
  chat_run first --prompt "chat: apple tree"
  grep -qF "pong: apple tree" "$dir/first.out" || fail "the first turn's answer is not shown"
  # Radium forgets it: the session is now only Claude's own.
  rm -f "$dir"/radium-home/*/conversations/*.jsonl
  chat_run list --list
  local id
  id=$(sed -n 's/^ *[0-9]*\. agent:\([^ ]*\)  claude-list  (the agent.s own).*/\1/p' "$dir/list.out" | head -n 1)
  [ -n "$id" ] || fail "rad chat --list does not list Claude's own session (session/list)"
  if [ -n "$id" ]; then
    chat_run second --resume "agent:$id" --prompt "chat: recall"
    grep -qF "took up its own session $id" "$dir/second.err" \
      || fail "rad chat does not say the agent took up its session"
    grep -qF "recall: apple tree" "$dir/second.out" \
      || fail "the model was not sent the earlier turn (its answer does not recall it)"
  fi
  RADIUM_HOME=$dir/radium-home timeout 10 "$RAD" shutdown >/dev/null 2>&1 || true
  stop_server
  verdict "$agent" && return 0
  {
    local out
    for out in first list second; do
      show "rad chat ($out) stdout" "$dir/$out.out"
      show "rad chat ($out) stderr" "$dir/$out.err"
    done
    show "model server log" "$dir/server.log"
    show_agent_err "$agent" "$dir"
  } >&2
  failed_agents+=("$agent")
}

# run_commands: Claude Code's slash commands and usage through rad chat. The
# workspace has a project command .claude/commands/radium-echo.md whose text
# is `chat: radium-cmd $ARGUMENTS` (the scripted model answers a `chat:`
# prompt with `pong: <words>`).
run_commands() {
  local agent=claude-commands
  local dir=$TMP/$agent
  local ws=$dir/workspace
  mkdir -p "$ws/.claude/commands"
  printf -- '---\ndescription: Echo the words through the scripted model\nargument-hint: <words>\n---\nchat: radium-cmd $ARGUMENTS\n' \
    >"$ws/.claude/commands/radium-echo.md"
  local failures=()
  fail() { failures+=("$*"); }
  start_server "$dir" "$ws/unused.txt" ""
  write_config "$agent" "$dir"
  rad_homes+=("$dir/radium-home")
  : >"$dir/agent.err"
  say "$agent: rad chat --json (model server on port $PORT)"
  local rc=0
  (cd "$ws" && RADIUM_HOME=$dir/radium-home RADIUM_DAEMON_IDLE=60 \
    timeout -k 5 120 env "${unset_env[@]}" "$RAD" chat "$agent" --yes --json \
    --prompt "/radium-echo alpha beta" \
    >"$dir/events.jsonl" 2>"$dir/rad.err" {SERVER_FD}>&-) || rc=$?
  [ "$rc" = 0 ] || fail "rad chat --json exited with code $rc"
  local names
  names=$(jq -r 'select(.type == "commands") | .commands[].name' "$dir/events.jsonl" 2>/dev/null | sort -u)
  grep -qxF "radium-echo" <<<"$names" || fail "no commands event holds the project command radium-echo (names: $(tr '\n' ' ' <<<"$names"))"
  [ "$(grep -c . <<<"$names")" -ge 3 ] || fail "the commands event holds fewer than 3 commands: $(tr '\n' ' ' <<<"$names")"
  # has FILTER: some event of the --json run satisfies FILTER.
  has() { jq -se "any(.[]; $1)" "$dir/events.jsonl" >/dev/null 2>&1; }
  has '.type == "commands" and any(.commands[]; .name == "radium-echo" and .hint == "<words>" and (.description | test("Echo the words")))' \
    || fail "radium-echo's hint or description is not as written"
  has '.type == "turn_end" and (.text | test("pong: radium-cmd alpha beta"))' \
    || fail "the turn's answer is not the command's expansion (pong: radium-cmd alpha beta)"
  has '.type == "usage" and (.used | type) == "number" and (.size | type) == "number"' \
    || fail "no usage event with used and size"
  say "$agent: rad chat (text)"
  rc=0
  (cd "$ws" && RADIUM_HOME=$dir/radium-home RADIUM_DAEMON_IDLE=60 \
    timeout -k 5 120 env "${unset_env[@]}" "$RAD" chat "$agent" --yes \
    --prompt "/radium-echo gamma" \
    >"$dir/chat.out" 2>"$dir/chat.err" {SERVER_FD}>&-) || rc=$?
  [ "$rc" = 0 ] || fail "rad chat exited with code $rc"
  grep -qF "pong: radium-cmd gamma" "$dir/chat.out" || fail "the text output has no answer to /radium-echo gamma"
  grep -qE '^\[usage: [0-9.]+[kM]?/[0-9.]+[kM]? tokens, \$[0-9]+\.[0-9]{2}\]$' "$dir/chat.out" \
    || fail "no usage line after the turn in the text output"
  RADIUM_HOME=$dir/radium-home timeout 10 "$RAD" shutdown >/dev/null 2>&1 || true
  stop_server
  verdict "$agent" && return 0
  {
    show "rad chat --json events" "$dir/events.jsonl"
    show "rad chat --json stderr" "$dir/rad.err"
    show "rad chat stdout" "$dir/chat.out"
    show "rad chat stderr" "$dir/chat.err"
    show "model server log" "$dir/server.log"
    show_agent_err "$agent" "$dir"
  } >&2
  failed_agents+=("$agent")
}

# run_image AGENT: a small PNG through `rad chat AGENT --image`: the model
# server is sent the PNG's bytes (its answer names their SHA-256); a file
# that is not an image is refused by rad chat with its name.
run_image() {
  local agent=$1
  local dir=$TMP/$agent
  local ws=$dir/workspace
  mkdir -p "$ws"
  local failures=()
  fail() { failures+=("$*"); }
  # A 1x1 PNG (a red pixel).
  base64 -d >"$ws/shot.png" <<<'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=='
  printf 'hello\n' >"$ws/notes.txt"
  local sum
  sum=$(sha256sum "$ws/shot.png" | cut -d' ' -f1)
  start_server "$dir" "$ws/unused.txt" ""
  write_config "$agent" "$dir"
  rad_homes+=("$dir/radium-home")
  : >"$dir/agent.err"
  say "$agent: rad chat --image shot.png (model server on port $PORT)"
  local rc=0
  (cd "$ws" && RADIUM_HOME=$dir/radium-home RADIUM_DAEMON_IDLE=60 \
    timeout -k 5 120 env "${unset_env[@]}" "$RAD" chat "$agent" --image shot.png \
    --prompt "chat: image" >"$dir/chat.out" 2>"$dir/chat.err" {SERVER_FD}>&-) || rc=$?
  [ "$rc" = 0 ] || fail "rad chat --image exited with code $rc"
  grep -qF "image: image/png sha256 $sum" "$dir/chat.out" \
    || fail "the model was not sent the PNG (its answer should be: image: image/png sha256 $sum)"
  rc=0
  (cd "$ws" && RADIUM_HOME=$dir/radium-home RADIUM_DAEMON_IDLE=60 \
    timeout -k 5 120 env "${unset_env[@]}" "$RAD" chat "$agent" --image notes.txt \
    --prompt "chat: image" >"$dir/bad.out" 2>"$dir/bad.err" {SERVER_FD}>&-) || rc=$?
  [ "$rc" = 1 ] || fail "rad chat --image notes.txt exited with code $rc, not 1"
  grep -qF "not an image type radium sends" "$dir/bad.err" \
    || fail "rad chat --image notes.txt does not say it is not an image"
  grep -qF "image: " "$dir/bad.out" && fail "the agent was prompted with a file that is not an image"
  RADIUM_HOME=$dir/radium-home timeout 10 "$RAD" shutdown >/dev/null 2>&1 || true
  stop_server
  verdict "$agent" && return 0
  {
    show "rad chat stdout" "$dir/chat.out"
    show "rad chat stderr" "$dir/chat.err"
    show "rad chat (not an image) stdout" "$dir/bad.out"
    show "rad chat (not an image) stderr" "$dir/bad.err"
    show "model server log" "$dir/server.log"
    show_agent_err "$agent" "$dir"
  } >&2
  failed_agents+=("$agent")
}

# run_catalogue gemini|claude: an agent of radium's catalogue with no
# agents.toml. gemini: a real `rad agents install gemini` into a fresh cache;
# claude: the copy scripts/ensure-agents.sh installed, linked into a fresh
# cache where `rad agents install` would put it (the same pinned version, so
# no second download). Then `rad agents list`, `rad agents check`, and `rad
# chat` (gemini: no agent named; claude: named, as both are ready) runs a
# turn that writes notes.txt.
run_catalogue() {
  local kind=$1
  local agent=$kind-catalogue
  local dir=$TMP/$agent
  local ws=$dir/workspace home=$dir/home
  mkdir -p "$ws" "$home/.gemini" "$home/.claude" "$dir/radium-home" "$dir/cache/radium/agents"
  local file=$ws/notes.txt
  printf 'hello\n' >"$file"
  local new="hello from the catalogue through radium"$'\n'
  local failures=()
  fail() { failures+=("$*"); }
  cat >"$home/.gemini/settings.json" <<'JSON'
{
  "privacy": { "usageStatisticsEnabled": false },
  "telemetry": { "enabled": false },
  "general": { "enableAutoUpdate": false, "enableAutoUpdateNotification": false },
  "security": { "auth": { "selectedType": "gemini-api-key" } }
}
JSON
  start_server "$dir" "$file" "$new"
  rad_homes+=("$dir/radium-home")
  : >"$dir/agent.err"
  # What the agent inherits from rad: no agents.toml gives it anything.
  local env_vars=(RADIUM_HOME="$dir/radium-home" RADIUM_DAEMON_IDLE=60 HOME="$home"
    XDG_CACHE_HOME="$dir/cache" XDG_CONFIG_HOME="$home/.config" XDG_DATA_HOME="$home/.local/share"
    NO_UPDATE_NOTIFIER=1 NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost
    RADIUM_TEST_AGENTS="$RUN_ID" npm_config_cache="${npm_config_cache:-$HOME/.npm}")
  local folder package chat_args=()
  if [ "$kind" = gemini ]; then
    folder=gemini-cli@0.61.0 package=@google/gemini-cli@0.61.0
    env_vars+=(GOOGLE_GEMINI_BASE_URL="http://127.0.0.1:$PORT" GEMINI_API_KEY=test-not-a-key
      GEMINI_CLI_TRUST_WORKSPACE=true)
  else
    folder=claude-agent-acp@0.23.1 package=@zed-industries/claude-agent-acp@0.23.1
    env_vars+=(ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" ANTHROPIC_API_KEY=sk-ant-test-not-a-key
      CLAUDE_CONFIG_DIR="$home/.claude" CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1
      DISABLE_AUTOUPDATER=1 DISABLE_ERROR_REPORTING=1)
    ln -s "${CLAUDE_JS%%/node_modules/*}" "$dir/cache/radium/agents/$folder"
    chat_args=(claude)
  fi
  local rc=0
  say "$agent: rad agents install $kind (into a fresh cache)"
  (cd "$ws" && timeout -k 5 600 env "${unset_env[@]}" "${env_vars[@]}" "$RAD" agents install "$kind" \
    >"$dir/install.out" 2>"$dir/install.err" {SERVER_FD}>&-) || rc=$?
  [ "$rc" = 0 ] || fail "rad agents install $kind exited with $rc: $(tail -n 20 "$dir/install.err")"
  if [ "$kind" = gemini ]; then
    grep -q "^installed $package as agent \`gemini\` in $dir/cache/radium/agents/$folder" "$dir/install.out" \
      || fail "rad agents install did not say where it installed: $(cat "$dir/install.out")"
  else
    grep -q "^$package is installed already" "$dir/install.out" \
      || fail "rad agents install claude did not find the linked copy: $(cat "$dir/install.out")"
  fi
  [ -f "$dir/cache/radium/agents/$folder/.complete" ] || fail "no finished install in the cache"
  (cd "$ws" && env "${unset_env[@]}" "${env_vars[@]}" "$RAD" agents list >"$dir/list.out" 2>&1 {SERVER_FD}>&-) || true
  grep -qE "^$kind +installed +radium.s cache: " "$dir/list.out" || fail "rad agents list does not show $kind installed: $(cat "$dir/list.out")"
  rc=0
  (cd "$ws" && timeout -k 5 120 env "${unset_env[@]}" "${env_vars[@]}" "$RAD" agents check "$kind" \
    >"$dir/check.out" 2>"$dir/check.err" {SERVER_FD}>&-) || rc=$?
  [ "$rc" = 0 ] && [ "$(cat "$dir/check.out")" = "$kind: OK" ] \
    || fail "rad agents check $kind exited with $rc: $(cat "$dir/check.out" "$dir/check.err")"
  say "$agent: rad chat ${chat_args[*]:-(no agent named)} (model server on port $PORT)"
  rc=0
  (cd "$ws" && timeout -k 5 180 env "${unset_env[@]}" "${env_vars[@]}" "$RAD" chat "${chat_args[@]}" --json --yes \
    --prompt "Replace the whole content of notes.txt with: hello from the catalogue through radium" \
    >"$dir/events.jsonl" 2>"$dir/rad.err" {SERVER_FD}>&-) || rc=$?
  [ "$rc" = 0 ] || fail "rad chat ${chat_args[*]:-(no agent named)} exited with $rc"
  local events=$dir/events.jsonl
  if [ -s "$events" ] && jq . "$events" >/dev/null 2>&1; then
    [ "$(jq -s '[.[] | select(.type == "turn_end" and .stop_reason == "end_turn")] | length' "$events")" = 1 ] \
      || fail "no turn_end with stop_reason end_turn"
    [ "$(jq -s --arg f "$file" '[.[] | select(.type == "write" and .path == $f)] | length' "$events")" -ge 1 ] \
      || fail "no write event for notes.txt"
  else
    fail "rad chat printed no JSON events"
  fi
  [ "$(cat "$file"; echo x)" = "${new}x" ] || fail "notes.txt does not hold the new content: $(jq -Rs . <"$file")"
  stop_server
  verdict "$agent" && return 0
  {
    show "rad agents install stdout" "$dir/install.out"
    show "rad agents install stderr" "$dir/install.err"
    show "rad agents list" "$dir/list.out"
    show "rad agents check" "$dir/check.out"
    show "rad chat --json events" "$events"
    show "rad chat stderr" "$dir/rad.err"
    show "model server log" "$dir/server.log"
  } >&2
  failed_agents+=("$agent")
}

for agent in "${agents[@]}"; do
  case "$agent" in
    claude-image | gemini-image) run_image "$agent" ;;
    gemini-catalogue) run_catalogue gemini ;;
    claude-catalogue) run_catalogue claude ;;
    claude-modes) run_modes ;;
    claude-usermcp) run_usermcp ;;
    claude-resume) run_resume ;;
    claude-list) run_list ;;
    claude-nvim-list) run_nvim_list ;;
    claude-notice) run_notice ;;
    claude-flood) run_flood ;;
    claude-nvim-exit) run_nvim_exit ;;
    claude-commands) run_commands ;;
    claude-bash) run_bash ;;
    claude-hunks | gemini-hunks) run_hunks "$agent" ;;
    claude-hooks) run_hooks ;;
    claude-turn) run_turn ;;
    claude-nvim) run_nvim ;;
    gemini-resume) run_gemini_resume ;;
    gemini-modes) run_gemini_modes ;;
    gemini-commands) run_gemini_commands ;;
    acp-claude | acp-gemini) run_acp "$agent" ;;
    acp-claude-load) run_acp_load ;;
    acp-claude-resume) run_acp_load resume ;;
    acp-claude-mcp) run_acp_mcp ;;
    *) run "$agent" ;;
  esac
done

if [ ${#failed_agents[@]} -gt 0 ]; then
  die "failed: ${failed_agents[*]}"
fi
echo "test-agents: all passed (${agents[*]})"
