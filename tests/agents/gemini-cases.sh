# gemini-cases.sh — sourced by scripts/test-agents.sh: Gemini CLI 0.61
# (`gemini --acp`) through rad chat, for history, modes and commands.
# What Gemini CLI 0.61 offers (its answers, 2026-11-27): `initialize` says
# `loadSession: true` and no `sessionCapabilities` (no session/resume or
# session/list); `session/new` answers the legacy `modes` (default,
# autoEdit, yolo, plan) and the unstable `models` (switched only by
# session/set_model, which radium does not send), no `configOptions`; it
# sends `available_commands_update` (about, help, init, memory, extensions,
# restore, ...) and runs those commands itself; it sends no `usage_update`.
#   - gemini-resume: three `chat:` turns, then `rad chat --continue` in a new
#     process: Gemini CLI loads its own session (session/load, whose replay
#     radium does not pass on), the model server receives the earlier turn
#     in the second request's contents, and the transcript shows the earlier
#     turn once. Continued at once instead (the same minute), Gemini CLI
#     0.61 refuses the load (see run_gemini_resume): rad chat names the
#     refusal and sends the earlier turns as context.
#   - gemini-modes: rad chat's `/mode` lists Gemini's four modes; `/model`
#     lists its models and says they cannot be switched through ACP;
#     `--model X` exits 1 naming why, before the prompt, and what it says
#     to do works (GEMINI_MODEL in agents.toml: the model server is asked
#     for that model); `--mode plan --yes` keeps notes.txt unchanged while
#     the scripted model tries write_file (Gemini CLI itself refuses a
#     write outside its plans folder in plan mode).
#   - gemini-commands: `/help` in rad chat lists Gemini's commands (its
#     /restore marked: rad chat's own runs instead); a prompt `/about`
#     reaches Gemini CLI, which answers it itself (its version; the model
#     server gets no request); no usage line is printed (Gemini sends no
#     usage_update).

# gemini_chat CASE OUT ARGS...: one `rad chat CASE ARGS...` in the case's
# workspace (stdin inherited); a non-zero exit is a failure unless
# GEMINI_RC (the expected code) says otherwise.
gemini_chat() {
  local agent=$1 out=$2
  shift 2
  local dir=$TMP/$agent rc=0
  (cd "$dir/workspace" && RADIUM_HOME=$dir/radium-home RADIUM_DAEMON_IDLE=60 \
    timeout -k 5 120 env "${unset_env[@]}" "$RAD" chat "$agent" "$@" \
    >"$dir/$out.out" 2>"$dir/$out.err" {SERVER_FD}>&-) || rc=$?
  [ "$rc" = "${GEMINI_RC:-0}" ] || fail "rad chat $* exited with code $rc, not ${GEMINI_RC:-0}"
}

# gemini_report CASE OUTS...: the end of a case: its verdict, else what it kept.
gemini_report() {
  local agent=$1
  shift
  local dir=$TMP/$agent
  RADIUM_HOME=$dir/radium-home timeout 10 "$RAD" shutdown >/dev/null 2>&1 || true
  stop_server
  verdict "$agent" && return 0
  {
    local out
    for out in "$@"; do
      [ -f "$dir/$out.out" ] && show "rad chat ($out) stdout" "$dir/$out.out"
      [ -f "$dir/$out.err" ] && show "rad chat ($out) stderr" "$dir/$out.err"
    done
    show "model server log" "$dir/server.log"
    [ -f "$dir/messages.jsonl" ] && show "contents the model server received" "$dir/messages.jsonl"
    show_agent_err "$agent" "$dir"
  } >&2
  failed_agents+=("$agent")
}

# gemini_setup CASE: the case's folder, model server and configuration.
gemini_setup() {
  local agent=$1
  local dir=$TMP/$agent
  mkdir -p "$dir/workspace"
  printf 'hello\n' >"$dir/workspace/notes.txt"
  MODEL_LOG_MESSAGES=$dir/messages.jsonl start_server "$dir" "$dir/workspace/notes.txt" "changed by gemini"$'\n'
  write_config "$agent" "$dir"
  rad_homes+=("$dir/radium-home")
  : >"$dir/agent.err"
}

run_gemini_resume() {
  local agent=gemini-resume
  local dir=$TMP/$agent
  local failures=()
  fail() { failures+=("$*"); }
  gemini_setup "$agent"
  say "$agent: two rad chat runs, the second --continue (model server on port $PORT)"
  # Three turns: Gemini CLI streams the replay of a session/load after its
  # answer, the longer the more turns (radium waits for it to end).
  printf 'chat: apple tree\nchat: cherry pie\nchat: plum jam\n' | gemini_chat "$agent" first
  grep -qF "pong: cherry pie" "$dir/first.out" || fail "the first run's answers are not shown"
  # Gemini CLI 0.61 names a session's file by the minute it started
  # (chats/session-<minute>-<id>.jsonl) and, loading a session, first opens
  # a new record under that name: loaded in the same minute, the session's
  # own file is emptied and the load is refused ("Invalid session
  # identifier"). The conversation is given the name of two minutes
  # before, as one continued later would have (not older: Gemini CLI
  # deletes its old sessions at start).
  local chats f earlier
  chats=$dir/home/.gemini/tmp/workspace/chats
  earlier=$(date -u -d '-2 min' +%Y-%m-%dT%H-%M)
  for f in "$chats"/session-*.jsonl; do
    [ -e "$f" ] || continue
    mv "$f" "$chats/session-$earlier-${f##*-}"
  done
  gemini_chat "$agent" second --continue --prompt "chat: recall"
  # How the agent came back (Gemini CLI offers session/load): said on screen.
  local how
  how=$(grep -oE "the agent (loaded|resumed) its own session|the agent cannot resume its own session" "$dir/second.err" | head -n 1)
  say "$agent: ${how:-(rad chat said nothing of how it came back)}"
  [ "$how" = "the agent loaded its own session" ] \
    || fail "Gemini CLI's session was not loaded (session/load): ${how:-nothing said}"
  local w
  for w in "apple tree" "cherry pie" "plum jam"; do
    [ "$(grep -oF "pong: $w" "$dir/second.out" | wc -l)" = 1 ] \
      || fail "the earlier answer pong: $w is not shown exactly once in the transcript"
    [ "$(grep -cxF "> chat: $w" "$dir/second.out")" = 1 ] \
      || fail "the earlier prompt chat: $w is not shown exactly once in the transcript"
  done
  grep -qxF "recall: apple tree | cherry pie | plum jam" "$dir/second.out" \
    || fail "the model was not sent the earlier turns, or the replay landed in the new turn (its answer is not the recall alone)"
  # The second turn's main request carries the first prompt in its contents.
  jq -e -s 'map(select(.tools > 0 and (.messages[-1].text | contains("chat: recall"))))
    | length > 0 and all(.messages | map(.text) | join("\n") | contains("chat: apple tree"))' \
    "$dir/messages.jsonl" >/dev/null 2>&1 \
    || fail "the model server has no request of the second turn whose contents hold the first prompt"
  # Continued at once (as a user would, in the same minute), Gemini CLI
  # refuses its session/load: rad chat says so with Gemini's reason, and the
  # earlier turn goes with the prompt as context. Across a minute's change
  # the load succeeds instead; either way the model gets the earlier turn.
  gemini_chat "$agent" third --prompt "chat: banana split"
  gemini_chat "$agent" fourth --continue --prompt "chat: recall again"
  how=$(grep -oE "the agent (loaded its own session|refused to take up its own session \(\`session/load\`: [^)]*)" "$dir/fourth.err" | head -n 1)
  say "$agent: continued at once: ${how:-(rad chat said nothing of how it came back)}"
  [ -n "$how" ] || fail "continued at once, rad chat did not say it loaded or why the load was refused: $(jq -Rs . <"$dir/fourth.err")"
  [ "$(grep -cxF "> chat: banana split" "$dir/fourth.out")" = 1 ] \
    || fail "continued at once, the earlier prompt is not shown exactly once"
  jq -e -s 'map(select(.tools > 0 and (.messages[-1].text | contains("chat: recall again"))))
    | length > 0 and all(.messages | map(.text) | join("\n") | contains("chat: banana split"))' \
    "$dir/messages.jsonl" >/dev/null 2>&1 \
    || fail "continued at once, the model server got no request holding the earlier prompt"
  gemini_report "$agent" first second third fourth
}

run_gemini_modes() {
  local agent=gemini-modes
  local dir=$TMP/$agent
  local file=$dir/workspace/notes.txt
  local failures=()
  fail() { failures+=("$*"); }
  gemini_setup "$agent"
  say "$agent: rad chat /mode and /model (model server on port $PORT)"
  printf '/mode\n/model\n' | gemini_chat "$agent" list
  local m
  for m in default autoEdit yolo plan; do
    grep -qE "^[ *] $m( |$)" "$dir/list.out" || fail "/mode does not list $m"
  done
  grep -qE '^\* default' "$dir/list.out" || fail "/mode does not mark default as the current mode"
  grep -qF "rad chat: $agent · mode default" "$dir/list.err" || fail "the header line does not say the mode"
  grep -qE '^[ *] gemini-2.5-pro' "$dir/list.out" || fail "/model does not list Gemini's models"
  grep -qF "session/set_model" "$dir/list.out" || fail "/model does not say the models cannot be switched through ACP"
  say "$agent: --model gemini-2.5-pro is refused, before the prompt"
  GEMINI_RC=1 gemini_chat "$agent" model --model gemini-2.5-pro --prompt "chat: which model"
  grep -qF -- "--model gemini-2.5-pro: " "$dir/model.err" && grep -qF "session/set_model" "$dir/model.err" \
    || fail "--model was not refused with the reason: $(jq -Rs . <"$dir/model.err")"
  grep -qF "pong: which model" "$dir/model.out" && fail "the prompt was sent although --model was refused"
  # What the refusal tells the user to do works: the same agent with
  # GEMINI_MODEL in its agents.toml environment asks the model server for
  # that model, and rad chat's header says it.
  say "$agent: GEMINI_MODEL=gemini-2.5-pro in agents.toml"
  printf 'GEMINI_MODEL = "gemini-2.5-pro"\n' >>"$dir/radium-home/agents.toml"
  local before
  before=$(wc -l <"$dir/server.log")
  gemini_chat "$agent" envmodel --prompt "chat: which model"
  grep -qF "pong: which model" "$dir/envmodel.out" || fail "the turn with GEMINI_MODEL did not answer"
  tail -n +"$((before + 1))" "$dir/server.log" | grep -q ' model gemini-2.5-pro$' \
    || fail "the model server never received model gemini-2.5-pro: $(tail -n +"$((before + 1))" "$dir/server.log" | grep ' model ' | sort -u | tr '\n' ' ')"
  grep -qF "model gemini-2.5-pro" "$dir/envmodel.err" || fail "the header line does not say model gemini-2.5-pro"
  sed -i '/^GEMINI_MODEL = /d' "$dir/radium-home/agents.toml"
  say "$agent: --mode plan --yes, the model tries to write notes.txt"
  gemini_chat "$agent" plan --mode plan --yes --json --prompt "Replace the whole content of notes.txt"
  [ "$(cat "$file")" = hello ] || fail "notes.txt changed in plan mode: $(jq -Rs . <"$file")"
  grep -q '"type":"turn_end"' "$dir/plan.out" || fail "the plan-mode turn did not end"
  # Who kept the file: Gemini CLI (plan mode offers its model no write
  # tool, or refuses the call) or radium (refusing the permission).
  if jq -se 'any(.[]; .type == "permission_decided" and .by == "radium")' "$dir/plan.out" >/dev/null 2>&1; then
    say "$agent: radium refused the write in plan mode"
  else
    say "$agent: Gemini CLI itself made no write in plan mode (no permission asked)"
  fi
  grep -qF " model " "$dir/server.log" || fail "the model server logged no model"
  gemini_report "$agent" list model envmodel plan
}

run_gemini_commands() {
  local agent=gemini-commands
  local dir=$TMP/$agent
  local failures=()
  fail() { failures+=("$*"); }
  gemini_setup "$agent"
  say "$agent: /help, then /about (model server on port $PORT)"
  printf '/help\n/about\n' | gemini_chat "$agent" chat --yes
  local c
  for c in about help init memory; do
    grep -qE "^  /$c( |$)" "$dir/chat.out" || fail "/help does not list Gemini's command /$c"
  done
  # Gemini CLI's own /restore is shadowed by rad chat's: /help says so.
  grep -qE '^  /restore .*\[rad chat runs its own /restore instead: not sent from here\]$' "$dir/chat.out" \
    || fail "/help does not mark Gemini's /restore as run by rad chat instead"
  grep -qF "Gemini CLI Info:" "$dir/chat.out" && grep -qF -- "- Version: 0.61" "$dir/chat.out" \
    || fail "/about did not reach Gemini CLI (its answer is not shown)"
  # Gemini CLI ran it itself: its model was never asked.
  grep -qF "gemini stream" "$dir/server.log" && fail "/about was sent to the model, not run by Gemini CLI"
  grep -q '^\[usage: ' "$dir/chat.out" && fail "a usage line was printed, but Gemini CLI sends no usage_update"
  gemini_report "$agent" chat
}
