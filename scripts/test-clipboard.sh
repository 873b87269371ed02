#!/usr/bin/env bash
# Clipboard mode with a real X clipboard under Xvfb: `rad clipboard` (the
# text outlives rad, read back with xclip), receive/apply/undo, the refusals,
# an empty and a binary clipboard, no display at all; then the same through
# the C, Lua (Neovim) and Node doors. Installs xvfb and xclip when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-apt.sh xvfb-run:xvfb xclip:xclip xauth:xauth
cargo build --workspace --bins --quiet   # --workspace: the test build's features, nothing compiled again
rad=$PWD/target/debug/rad
work=$(mktemp -d)
export RADIUM_HOME="$work/home"
ws="$work/ws"
cleanup() {
  pkill -f "$rad clipboard hold" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fresh() {
  rm -rf "$ws"; mkdir -p "$ws/src"
  printf 'int one(void) { return 1; }\nint two(void) { return 2; }\nint three(void) { return 3; }\n' > "$ws/src/lib.c"
}
fail() { echo "FAIL: $*" >&2; exit 1; }

echo "--- no display: a clear error"
fresh
out=$(cd "$ws" && env -u DISPLAY -u WAYLAND_DISPLAY "$rad" clipboard send src/lib.c 2>&1) && fail "send without a display succeeded"
grep -q "neither DISPLAY (X11) nor WAYLAND_DISPLAY (Wayland) is set" <<<"$out" || fail "no-display message: $out"
out=$(cd "$ws" && env -u DISPLAY -u WAYLAND_DISPLAY "$rad" clipboard receive 2>&1) && fail "receive without a display succeeded"
grep -q "neither DISPLAY" <<<"$out" || fail "no-display message: $out"
out=$(cd "$ws" && env -u DISPLAY "$rad" clipboard send src/lib.c --lines 2 --print)
grep -q '```c:src/lib.c' <<<"$out" || fail "--print without a display: $out"

export ws rad
xvfb-run -a -s "-screen 0 640x480x24" bash -euo pipefail -c '
fail() { echo "FAIL: $*" >&2; exit 1; }
# copy [xclip -i args]: puts stdin on the clipboard with xclip and waits
# until the clipboard shows it. `xclip -i` returns before the process it
# leaves in the background has told the X server it owns the clipboard, so
# on a busy machine a reader right after it still gets the old owner.
copy() {
  local f; f=$(mktemp)
  cat >"$f"
  xclip -i -selection clipboard "$@" <"$f"
  for _ in $(seq 300); do
    if [ "${1:-}" = -t ]; then
      xclip -o -selection clipboard -t TARGETS 2>/dev/null | grep -qx "$2" && { rm -f "$f"; return 0; }
    elif xclip -o -selection clipboard 2>/dev/null | cmp -s - "$f"; then
      rm -f "$f"; return 0
    fi
    sleep 0.1
  done
  fail "xclip did not take the clipboard within 30 s"
}
cd "$ws"
echo "--- rad clipboard send: the text stays after rad exited"
"$rad" clipboard send src/lib.c --lines 2-3 --prompt "Why two?" 2>"$ws/../send.err"
grep -q "copied lines 2-3 of src/lib.c" "$ws/../send.err" || fail "send message: $(cat "$ws/../send.err")"
sleep 0.2
got=$(xclip -o -selection clipboard)
[[ "$got" == "Why two?"* ]] || fail "clipboard after rad exited: $got"
grep -qF "\`\`\`c:src/lib.c" <<<"$got" || fail "no annotated fence: $got"
pgrep -f "$rad clipboard hold" >/dev/null || fail "no holder process"
echo "--- another program takes the clipboard: the holder ends"
echo other | copy
for _ in $(seq 100); do pgrep -f "$rad clipboard hold" >/dev/null || break; sleep 0.1; done
pgrep -f "$rad clipboard hold" >/dev/null && fail "the holder outlived its text"

echo "--- rad clipboard receive, --apply, rad undo"
printf "Here:\n\n\`\`\`c:src/lib.c\nint one(void) { return 1; }\nint two(void) { return 20; }\nint three(void) { return 3; }\n\`\`\`\n\nand\n\n\`\`\`c\nno path\n\`\`\`\n" | copy
out=$("$rad" clipboard receive)
grep -q "block 1: src/lib.c (c, 3 lines): changed" <<<"$out" || fail "listing: $out"
grep -q "+int two(void) { return 20; }" <<<"$out" || fail "diff: $out"
grep -q "block 2: (no path) (c, 1 lines): no path" <<<"$out" || fail "no-path block: $out"
grep -q "return 2;" src/lib.c || fail "listing wrote"
out=$("$rad" clipboard receive --apply)
grep -q "applied: 1 file(s), one step" <<<"$out" || fail "apply: $out"
grep -q "return 20;" src/lib.c || fail "not applied"
"$rad" undo >/dev/null
grep -q "return 2;" src/lib.c || fail "undo did not restore"

echo "--- an outside path is refused, nothing written"
printf "\`\`\`c:../escape.c\nx\n\`\`\`\n" | copy
out=$("$rad" clipboard receive --apply 2>&1) && fail "outside path applied"
grep -q "outside the project" <<<"$out" || fail "outside message: $out"
[ ! -e ../escape.c ] || fail "escape.c written"

echo "--- an empty and a binary clipboard"
printf "" | copy
out=$("$rad" clipboard receive 2>&1) || true
grep -q "no code blocks on the clipboard\|holds no text" <<<"$out" || fail "empty: $out"
head -c 64 /dev/urandom | copy -t image/png
out=$("$rad" clipboard receive 2>&1) && fail "binary clipboard read as text"
grep -q "holds no text" <<<"$out" || fail "binary: $out"
'
echo "rad: clipboard ok"
[ "${1:-}" = "--rad-only" ] && exit 0

echo "--- the C door"
prefix="$work/prefix"
bash scripts/install-c.sh "$prefix" >/dev/null
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
gcc -std=c11 -Wall -Wextra -Werror $(pkg-config --cflags radium) tests/c/test_clipboard.c \
  -o "$work/test_clipboard" $(pkg-config --libs radium) -Wl,-rpath,"$prefix/lib"
fresh
xvfb-run -a "$work/test_clipboard" "$ws" "$RADIUM_HOME"
env -u DISPLAY -u WAYLAND_DISPLAY "$work/test_clipboard" "$ws" "$RADIUM_HOME" nodisplay

echo "--- the Lua door (Neovim)"
nvim=$(bash scripts/ensure-nvim.sh)
bash bindings/lua/build.sh >/dev/null
fresh
xvfb-run -a timeout 60 "$nvim" --headless -u NONE -l tests/clipboard/lua_door.lua "$ws"

echo "--- the Node door"
# The Node build needs its npm tools (scripts/test.sh has installed them by now).
[ -d bindings/node/node_modules ] || (cd bindings/node && npm ci --no-audit --no-fund --loglevel=error)
bash bindings/node/build.sh >/dev/null
fresh
xvfb-run -a timeout 60 node tests/clipboard/node_door.mjs "$ws"
env -u DISPLAY -u WAYLAND_DISPLAY timeout 60 node tests/clipboard/node_door.mjs "$ws" nodisplay
echo "clipboard: all doors ok"
