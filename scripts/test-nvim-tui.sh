#!/usr/bin/env bash
# A whole chat turn in a real, interactive Neovim (its TUI in a tmux pane),
# typed as a user types and checked on the screen: :RadiumChat, a message
# sent with :w, the permission asked through vim.ui.select (answered 1),
# the agent's write landing in the open buffer, the tool call folded; then,
# in a new Neovim, :RadiumChat history reopens that conversation (picked
# through vim.ui.select) with its transcript, and the next prompt continues it.
#   bash scripts/test-nvim-tui.sh [path/to/nvim]
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
nvim=${1:-$(bash scripts/ensure-nvim.sh)}
case $nvim in /*) ;; */*) nvim="$repo/$nvim" ;; *) nvim=$(command -v "$nvim") ;; esac
command -v tmux >/dev/null || { echo "test-nvim-tui: tmux is needed" >&2; exit 1; }

tmp=$(mktemp -d)
sock="$tmp/tmux.sock"
session=radium-tui
cleanup() { tmux -S "$sock" kill-server 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT

mkdir -p "$tmp/home" "$tmp/ws/.git" "$tmp/ws/src"
cat > "$tmp/home/agents.toml" <<EOF
[[agents]]
id = "example"
protocol = "acp"
command = ["node", "$repo/examples/acp-agent/agent.mjs"]
EOF
echo "old text" > "$tmp/ws/notes.txt"
cat > "$tmp/init.lua" <<EOF
vim.opt.rtp:prepend("$repo/bindings/lua")
vim.o.swapfile = false
vim.o.shortmess = vim.o.shortmess .. "I"
vim.o.laststatus = 2
vim.o.statusline = "%f %{v:lua.require'radium'.statusline()}"
vim.cmd("runtime plugin/radium.lua")
require("radium").setup({ radium_home = "$tmp/home", chat_agent = "example" })
EOF

screen() { tmux -S "$sock" capture-pane -p -t "$session" 2>/dev/null || echo "(Neovim is gone)"; }
keys() { tmux -S "$sock" send-keys -t "$session" "$@"; }
# Waits up to 15 s for a text on the screen.
wait_for() {
  for _ in $(seq 1 150); do
    if screen | grep -qF -- "$1"; then return 0; fi
    sleep 0.1
  done
  echo "FAIL: '$1' never appeared on the screen:" >&2
  screen >&2
  exit 1
}
pass=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }

cd "$tmp/ws/src"
tmux -S "$sock" new-session -d -s "$session" -x 160 -y 40 \
  "RADIUM_HOME=$tmp/home $nvim -u $tmp/init.lua ../notes.txt"
wait_for "old text"
ok "Neovim started in a subfolder with the file"

keys ":RadiumChat" Enter
wait_for "# radium chat with example"
wait_for "## You"
ok ":RadiumChat opened the chat in a split"

keys "o" "write notes.txt written from tmux" Escape
keys ":w" Enter
wait_for "asks to run Write"
wait_for "Allow"
ok "the permission is asked (vim.ui.select)"
keys "1" Enter
wait_for "I wrote"
ok "the answer streamed in"
wait_for "written from tmux"
screen | grep -q "old text" && { echo "FAIL: the buffer still shows the old text" >&2; screen >&2; exit 1; }
ok "the open buffer shows the agent's write"
screen | grep -qE '(\+--|\*\*tool\*\*).*Write .*notes.txt' || { echo "FAIL: no tool entry" >&2; screen >&2; exit 1; }
wait_for "completed"
ok "the tool call is a folded entry with its status"
grep -qx "written from tmux" "$tmp/ws/notes.txt" || { echo "FAIL: the file on disk" >&2; exit 1; }
ok "the file on disk has the text"
if screen | grep -qE "W1[12]|E[0-9]+:|stack traceback"; then
  echo "FAIL: a warning or an error on the screen" >&2; screen >&2; exit 1
fi
ok "no warning, no error on the screen"

[ "${TUI_SHOW:-}" = 1 ] && screen   # TUI_SHOW=1 prints the screen of the turn
keys "o" "a message never sent" Escape
keys ":qa" Enter
for _ in $(seq 1 50); do
  tmux -S "$sock" has-session -t "$session" 2>/dev/null || break
  sleep 0.1
done
if tmux -S "$sock" has-session -t "$session" 2>/dev/null; then
  echo "FAIL: :qa did not quit" >&2; screen >&2; exit 1
fi
ok ":qa quits with an unsent message in the chat"

tmux -S "$sock" new-session -d -s "$session" -x 160 -y 40 \
  "RADIUM_HOME=$tmp/home $nvim -u $tmp/init.lua ../notes.txt"
wait_for "written from tmux"
keys ":RadiumChat history" Enter
wait_for "radium: reopen the conversation"
wait_for "example · 1 turn(s)"
ok ":RadiumChat history lists the past conversation after a restart"
keys "1" Enter
wait_for "# radium chat with example"
wait_for "I wrote"
[ "$(screen | grep -c "write notes.txt written from tmux")" = 1 ] \
  || { echo "FAIL: the earlier prompt is not shown once" >&2; screen >&2; exit 1; }
ok "the conversation reopened with its transcript, each turn once"
keys "G" "o" "remember" Escape
keys ":w" Enter
wait_for "earlier turns given as context: 1"
ok "the next prompt continues it (the agent got the earlier turn)"
if screen | grep -qE "W1[12]|E[0-9]+:|stack traceback"; then
  echo "FAIL: a warning or an error on the screen" >&2; screen >&2; exit 1
fi
keys ":qa!" Enter
echo "$pass passed"
