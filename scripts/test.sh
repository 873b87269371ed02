#!/usr/bin/env bash
# Runs every test of the project. Installs what it needs when it is missing.
# Any step that cannot run fails the whole script: nothing is skipped silently.
set -euo pipefail
cd "$(dirname "$0")/.."

# Tests never touch the user's ~/.radium (trust store, extensions).
RADIUM_HOME=$(mktemp -d)
export RADIUM_HOME
# Each step's time, printed at the end (and when a step fails), with the
# machine's CPU over it (/proc/stat: busy core-seconds of the whole machine,
# and seconds waiting on the disk), so a step that leaves cores idle shows.
step_names=() step_times=() step_cpu=() step_started=$SECONDS cpu_started=""
cpu_now() { # busy and iowait core-seconds since boot, in hundredths
  awk '/^cpu /{print $2+$3+$4+$7+$8+$9, $6}' /proc/stat 2>/dev/null || echo "0 0"
}
finish_step() {
  if [ ${#step_names[@]} -gt ${#step_times[@]} ]; then
    step_times+=($((SECONDS - step_started)))
    local busy wait b0 w0
    read -r busy wait <<<"$(cpu_now)"
    read -r b0 w0 <<<"$cpu_started"
    step_cpu+=("$(((busy - b0) / 100)) $(((wait - w0) / 100))")
  fi
}
print_times() {
  finish_step
  echo
  echo "step times: wall seconds, the machine's busy core-seconds (of $(nproc) cores), seconds of iowait"
  local i cpu
  for i in "${!step_names[@]}"; do
    read -r -a cpu <<<"${step_cpu[$i]:-? ?}"
    printf '  %5s %6s %5s  %s\n' "${step_times[$i]:-?}" "${cpu[0]}" "${cpu[1]}" "${step_names[$i]}"
  done
  printf '  %5s  total\n' "$SECONDS"
}
# The release build runs in the background for a while (below); it ends
# with the script.
# So does the VS Code e2e, which runs beside the last steps.
release_pid="" e2e_pid=""
stop_background() {
  local pid
  for pid in "$release_pid" "$e2e_pid"; do
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
      kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true
    fi
  done
}
trap 'status=$?; stop_background; print_times; rm -rf "$RADIUM_HOME" "${release_log:-}" "${e2e_log:-}"; exit $status' EXIT

step() {
  finish_step
  step_names+=("${1%% (*}") step_started=$SECONDS cpu_started=$(cpu_now)
  printf '\n==> %s\n' "$*"
}
die() { echo "test: $*" >&2; exit 1; }

command -v cargo >/dev/null || die "cargo is required (https://rustup.rs)"
# A clean CI checkout gains nothing from incremental caches, which double the
# size of target/; the free disk is printed so a failed link can be read.
if [ -n "${CI:-}" ]; then export CARGO_INCREMENTAL=0; fi
df -h . | sed 's/^/test: disk: /'
cargo fmt --version >/dev/null 2>&1 || rustup component add rustfmt || die "rustfmt is missing and could not be installed"
cargo clippy --version >/dev/null 2>&1 || rustup component add clippy || die "clippy is missing and could not be installed"

step "format (cargo fmt --check)"
cargo fmt --all -- --check

step "lint and debug build (clippy's lints in the build of every target, warnings are errors)"
# The debug build is the lint: clippy-driver compiles the workspace's crates
# (what `cargo clippy` does, with RUSTC_WORKSPACE_WRAPPER, for a check), so
# the dependencies are compiled once, not once for a check and once for the
# tests. Every debug build of the run keeps the wrapper (it is part of the
# crates' fingerprint: without it they would be compiled again); the release
# below does without it. --all-targets: the targets `cargo test` builds, the
# benches, and the Neovim module's crate (which has no tests).
clippy_driver=$(rustup which clippy-driver 2>/dev/null || echo "$(rustc --print sysroot)/bin/clippy-driver")
[ -x "$clippy_driver" ] || die "clippy-driver is missing ($clippy_driver)"
export RUSTC_WORKSPACE_WRAPPER=$clippy_driver CLIPPY_ARGS=-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__
cargo build --workspace --all-targets --quiet

step "Rust tests (unit, integration, doc; the benchmarks once in test mode)"
# Every release build of the run is the release itself: scripts/release.sh
# builds dist/ once (x86_64 and aarch64 on glibc 2.17, a static musl rad), and
# the C, Neovim and Node steps below test those binaries (RADIUM_PREBUILT)
# instead of building their own. It is about 20 minutes of CPU, the longest
# part of the run: it starts once the debug build is done (started with it,
# niced, it took little from it and the run was no shorter) and runs in the
# background (niced, idle I/O class, in its own process group) while the
# tests, agents, servers and language servers run. It builds this
# machine's architecture first and puts its binaries in
# target/release-prebuilt at once (RADIUM_RELEASE_HOST_OUT): the Node, C,
# Neovim, clipboard and VS Code steps test them while the other targets
# build, and test-release.sh checks the whole release when it is done.
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
release_log=$(mktemp)
prebuilt=$PWD/target/release-prebuilt
rm -rf "$prebuilt"
idle_io=()
if ionice -c 3 true 2>/dev/null; then idle_io=(ionice -c 3); fi
set -m
nice -n 10 "${idle_io[@]}" env -u RUSTC_WORKSPACE_WRAPPER -u CLIPPY_ARGS RADIUM_RELEASE_HOST_OUT="$prebuilt" \
  bash scripts/release.sh "$version" >"$release_log" 2>&1 &
release_pid=$!
set +m
echo "test: scripts/release.sh $version started in the background (pid $release_pid)"

cargo test --workspace
# Criterion runs each benchmark once when not given --bench; a debug build,
# so the benches share the tests' build instead of a release build of their own.
cargo test --workspace --bench '*' --quiet

step "real agents (Claude Code's ACP adapter, Gemini CLI from npm) against a scripted model server, through rad chat"
bash scripts/ensure-apt.sh jq:jq
# target/debug/rad is the tests' build. The cases in Neovim run in the Neovim
# step below, with the release's module (none is built in debug for them).
agent_cases=() nvim_agent_cases=()
while read -r c; do
  case $c in *nvim*) nvim_agent_cases+=("$c") ;; *) agent_cases+=("$c") ;; esac
done < <(bash scripts/test-agents.sh --list)
[ ${#agent_cases[@]} -gt 0 ] && [ ${#nvim_agent_cases[@]} -gt 0 ] || die "scripts/test-agents.sh --list gave no cases"
bash scripts/test-agents.sh --lanes 2 "${agent_cases[@]}"

step "rad mcp: the edit tools as an MCP server, driven by the reference MCP client (PyPI mcp)"
bash scripts/test-mcp.sh

step "rad acp: radium between an editor (the official ACP TypeScript SDK) and the example agent"
bash scripts/test-acp-proxy.sh

step "code intelligence: read-var, modify-var, rename-file with real language servers (jedi-language-server, typescript-language-server)"
bash scripts/test-lsp.sh

# The demo needs only the debug build: it runs while the release is built.
step "demo (the README's first command)"
bash scripts/demo.sh >/dev/null

release_failed() {
  release_pid=""
  cat "$release_log"
  die "scripts/release.sh failed (its output is above)"
}
step "release: this machine's binaries (scripts/release.sh, started when the debug build was done, builds them first)"
until [ -f "$prebuilt/VERSION" ]; do
  if ! kill -0 "$release_pid" 2>/dev/null; then
    wait "$release_pid" || release_failed
    release_pid=""
    [ -f "$prebuilt/VERSION" ] || die "scripts/release.sh ended without putting this machine's binaries in $prebuilt"
    break
  fi
  sleep 1
done
grep "this machine's binaries" "$release_log" || true
RADIUM_PREBUILT=$prebuilt
export RADIUM_PREBUILT

step "Node door and VS Code extension: the addon, node --test, tsc (npm ci when needed)"
bash scripts/test-node.sh

# From here the steps leave a core idle (they wait on processes), so the
# VS Code e2e runs beside them, in its own process group, its output
# printed when it ends, and the release (niced) goes on building the other
# targets beside both. The e2e starts after the Node step, which builds
# the extension's out/ that the e2e rebuilds.
e2e_log=$(mktemp)
set -m
bash -c 'started=$SECONDS; bash scripts/test-vscode-e2e.sh; status=$?
  echo "test: the VS Code e2e took $((SECONDS - started)) s, beside the steps since the Node step"
  exit $status' >"$e2e_log" 2>&1 &
e2e_pid=$!
set +m
echo "test: scripts/test-vscode-e2e.sh started in the background (pid $e2e_pid)"

step "C ABI: header, symbols, C and C++ programs (shared + static) under valgrind"
bash scripts/test-c.sh

step "Neovim door: require('radium') in real headless Neovim"
nvim=$(bash scripts/ensure-nvim.sh)
bash bindings/lua/build.sh
timeout 480 "$nvim" --headless -u NONE -l bindings/lua/tests/run.lua
timeout 120 bash scripts/test-nvim-tui.sh "$nvim"   # a chat turn typed in the TUI under tmux
NVIM=$nvim bash scripts/test-agents.sh --lanes 2 "${nvim_agent_cases[@]}"   # real agents in headless Neovim

step "clipboard mode: rad, C, Lua and Node with a real X clipboard under Xvfb"
bash scripts/test-clipboard.sh

step "release: the rest of it (the other targets, the packages), then the binaries as a user without Rust gets them (scripts/test-release.sh)"
if [ -n "$release_pid" ]; then
  wait "$release_pid" || release_failed
  release_pid=""
fi
tail -3 "$release_log"
# What the steps above tested is what dist/ ships.
shipped=$(mktemp -d)
bash scripts/unpack-release.sh dist "$shipped/out" >/dev/null
diff -r "$shipped/out" "$prebuilt" || die "target/release-prebuilt is not what dist/ ships (the diff is above)"
rm -rf "$shipped"
RADIUM_RELEASE_NO_BUILD=1 bash scripts/test-release.sh

step "VS Code extension end to end: the .vsix in code-server, driven by headless Chromium (the rest of it)"
e2e_status=0
wait "$e2e_pid" || e2e_status=$?
e2e_pid=""
cat "$e2e_log"
[ "$e2e_status" -eq 0 ] || die "scripts/test-vscode-e2e.sh failed (exit $e2e_status; its output is above)"

echo
echo "all tests passed"
