#!/usr/bin/env bash
# The release binaries, checked as a user without Rust gets them:
#   bash scripts/test-release.sh
#   1. scripts/release.sh builds dist/ (RADIUM_RELEASE_NO_BUILD=1 uses the
#      dist/ already built);
#   2. each binary's architecture (`file`) and glibc floor (no GLIBC_ symbol
#      newer than 2.17; the musl `rad` is static);
#   3. in a clean environment (fresh HOME, PATH without cargo or rustc),
#      dist/ served on 127.0.0.1 (python3 -m http.server):
#      - the Neovim plugin installs itself (its lazy.nvim build step) and runs
#        a chat turn with the example ACP agent; :checkhealth says where the
#        build came from; a wrong checksum, a platform without a build and a
#        module of another version are refused with clear messages and
#        nothing half-written (tests/release/nvim_install.lua);
#      - `npm install` of the Node package from the packed tarballs, and a request;
#      - a C program built with pkg-config against the SDK tarball;
#      - the linux-x64 .vsix installed into code-server: it activates (Show
#        Version from the palette), its module and `rad` run;
#   4. aarch64 under qemu-user: `rad --version` and a C program loading
#      the aarch64 libradium.so;
#   5. the real Claude Code adapter (scripts/test-agents.sh claude-mcp) with
#      the static musl `rad` as radium's MCP server.
# Cargo's output for the release targets: $CARGO_TARGET_DIR (default
# target/release-dist). Prints the time each part took.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd -P)
die() { echo "test-release: FAILED: $*" >&2; exit 1; }
started=$(date +%s)
step() { printf '\n==> %s (%d s so far)\n' "$*" "$(( $(date +%s) - started ))"; }
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
dist=$repo/dist

bash scripts/ensure-apt.sh file:file objdump:binutils pkg-config:pkg-config gcc:gcc curl:curl \
  unzip:unzip qemu-aarch64-static:qemu-user-static
for pkg in libc6-arm64-cross libgcc-s1-arm64-cross; do
  dpkg -s "$pkg" >/dev/null 2>&1 || bash scripts/ensure-apt.sh "no-such-command-$pkg:$pkg"
done
nvim=$(bash scripts/ensure-nvim.sh)

step "release.sh refuses a missing or foreign VERSION before touching dist/"
expect_refusal() { # EXPECTED-TEXT ARGS...
  local want=$1 out; shift
  if out=$(bash scripts/release.sh "$@" 2>&1); then die "release.sh $* succeeded"; fi
  grep -qF "$want" <<<"$out" || die "release.sh $*: expected \"$want\", got: $out"
}
expect_refusal "usage: bash scripts/release.sh VERSION"
expect_refusal "VERSION 9.9.9 is not the workspace version $version" 9.9.9

if [ "${RADIUM_RELEASE_NO_BUILD:-}" = 1 ]; then
  step "using the dist/ already built"
  [ -f "$dist/SHA256SUMS" ] || die "RADIUM_RELEASE_NO_BUILD=1 but dist/SHA256SUMS is missing"
else
  step "scripts/release.sh $version"
  bash scripts/release.sh "$version"
fi
(cd "$dist" && sha256sum --quiet -c SHA256SUMS) || die "dist/SHA256SUMS does not match dist/"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/radium-test-release.XXXXXX")
server_pid="" code_pid=""
cleanup() {
  local rc=$?
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  [ -n "$code_pid" ] && kill -- "-$code_pid" 2>/dev/null || true
  if [ "${RADIUM_RELEASE_KEEP:-}" = 1 ]; then echo "scratch kept: $scratch"; else rm -rf "$scratch"; fi
  [ $rc -eq 0 ] || echo "test-release: FAILED" >&2
  exit $rc
}
trap cleanup EXIT

step "architecture and glibc floor of every binary"
mkdir -p "$scratch/unpacked"
for t in "$dist"/*.tar.gz "$dist"/*.tgz; do tar -C "$scratch/unpacked" -xzf "$t" --transform "s|^|$(basename "$t")/|"; done
for v in "$dist"/*.vsix; do unzip -q -o "$v" -d "$scratch/unpacked/$(basename "$v")"; done
checked=0
while IFS= read -r f; do
  desc=$(file -b "$f")
  case $desc in ELF*) ;; *) continue ;; esac
  case $f in
    *aarch64*|*arm64*) want="ARM aarch64" ;;
    *) want="x86-64" ;;
  esac
  grep -q "$want" <<<"$desc" || die "$f is not $want: $desc"
  case $f in
    *musl*)
      grep -q "static" <<<"$desc" || die "$f is not static: $desc"
      ;;
    *)
      # The Neovim module uses the process's unwinder (bindings/lua/build.rs says why).
      case $f in
        *radium_native*)
          readelf -d "$f" | grep -q 'NEEDED.*\[libgcc_s\.so\.1\]' \
            || die "$f does not use libgcc_s.so.1: a Lua error raised through it would crash Neovim"
          ;;
      esac
      floor=$( (objdump -T "$f" 2>/dev/null || readelf --dyn-syms -W "$f") | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -1)
      [ -n "$floor" ] || die "$f has no GLIBC_ symbols"
      [ "$(printf '%s\n2.17\n' "$floor" | sort -V | tail -1)" = 2.17 ] || die "$f needs glibc $floor (newer than 2.17)"
      ;;
  esac
  printf '  %-70s %s\n' "${f#"$scratch/unpacked/"}" "$want, $([ -n "$floor" ] && echo "glibc $floor" || echo static)"
  floor=""
  checked=$((checked + 1))
done < <(find "$dist" "$scratch/unpacked" -type f \( -name '*.so' -o -name '*.node' -o -name 'rad' -o -name 'rad-*' \))
[ "$checked" -ge 12 ] || die "only $checked binaries were checked"

step "a clean environment: fresh HOME, no cargo or rustc on PATH, dist/ on 127.0.0.1"
mkdir -p "$scratch/home" "$scratch/bin"
# Only the tools a user without Rust has.
for tool in bash sh env cat cp mv rm mkdir ls sed grep sort tail head tr sha256sum curl node npm python3 \
  gcc cc ld as pkg-config tar gzip git file dirname basename uname readlink mktemp sleep timeout ldd setsid; do
  p=$(command -v "$tool" 2>/dev/null) && ln -sf "$(readlink -f "$p")" "$scratch/bin/$tool"
done
ln -sf "$nvim" "$scratch/bin/nvim"
clean_env=(env -i HOME="$scratch/home" PATH="$scratch/bin" TMPDIR="$scratch" LANG=C.UTF-8 TERM=dumb)
"${clean_env[@]}" bash -c '! command -v cargo && ! command -v rustc' >/dev/null || die "cargo or rustc is on the clean PATH"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
mkdir -p "$scratch/serve"
python3 -m http.server --bind 127.0.0.1 --directory "$scratch/serve" "$port" >"$scratch/http.log" 2>&1 &
server_pid=$!
ln -s "$dist" "$scratch/serve/good"
for _ in $(seq 50); do curl -fsS "http://127.0.0.1:$port/good/SHA256SUMS" >/dev/null 2>&1 && break; sleep 0.2; done
curl -fsS "http://127.0.0.1:$port/good/SHA256SUMS" >/dev/null || die "the HTTP server did not start"
base=http://127.0.0.1:$port

# A fresh copy of the plugin, as lazy.nvim would clone it (tracked files only).
plugin_copy() {
  rm -rf "$1"
  mkdir -p "$1"
  git ls-files -co --exclude-standard bindings/lua | grep -v '^bindings/lua/tests/' \
    | tar -cf - -T - | tar -C "$1" -xf - --strip-components=2
}
run_nvim() { # MODE PLUGIN URL [VAR=VALUE...]
  local mode=$1 plugin=$2 url=$3; shift 3
  "${clean_env[@]}" RADIUM_RELEASE_URL="$url" "$@" \
    timeout 300 nvim --headless -u NONE -i NONE -l "$repo/tests/release/nvim_install.lua" "$mode" "$plugin" "$repo"
}

step "Neovim: the lazy.nvim build step installs from the release, a chat turn runs"
plugin_copy "$scratch/plugin"
run_nvim install "$scratch/plugin" "$base/good"

step "Neovim: a wrong checksum is refused, nothing is left behind"
mkdir -p "$scratch/serve/corrupt"
cp "$dist"/SHA256SUMS "$dist"/rad-"$version"-linux-x86_64-gnu "$scratch/serve/corrupt/"
cp "$dist/radium_native-$version-linux-x86_64-gnu.so" "$scratch/serve/corrupt/"
printf 'x' >>"$scratch/serve/corrupt/radium_native-$version-linux-x86_64-gnu.so"
plugin_copy "$scratch/plugin-corrupt"
run_nvim corrupt "$scratch/plugin-corrupt" "$base/corrupt"

step "Neovim: a platform without a build, no cargo: says how to build"
plugin_copy "$scratch/plugin-missing"
run_nvim missing "$scratch/plugin-missing" "$base/good"

step "Neovim: a module of another version is refused (download and require)"
plugin_copy "$scratch/plugin-version"
printf 'return "9.9.9"\n' >"$scratch/plugin-version/lua/radium/version.lua"
mkdir -p "$scratch/serve/other"
cp "$dist/radium_native-$version-linux-x86_64-gnu.so" "$scratch/serve/other/radium_native-9.9.9-linux-x86_64-gnu.so"
(cd "$scratch/serve/other" && sha256sum -- * >SHA256SUMS)
run_nvim version "$scratch/plugin-version" "$base/other" RADIUM_REAL_VERSION="$version" \
  RADIUM_REAL_MODULE="$dist/radium_native-$version-linux-x86_64-gnu.so"

step "Node: npm install from the packed tarballs, a request"
mkdir -p "$scratch/node-app"
(
  cd "$scratch/node-app"
  echo '{"name":"app","version":"1.0.0","private":true}' >package.json
  "${clean_env[@]}" npm install --offline --no-audit --no-fund --loglevel=error \
    "$dist/radium-node-$version.tgz" "$dist/radium-node-linux-x64-gnu-$version.tgz" >"$scratch/npm.log" 2>&1 \
    || { cat "$scratch/npm.log"; exit 1; }
  [ ! -e node_modules/radium-node-linux-arm64-gnu ] || { echo "npm installed the arm64 package on x64"; exit 1; }
  "${clean_env[@]}" node -e '
    const radium = require("radium-node")
    const e = new radium.Engine({})
    const r = e.request({ command: "ping" })
    if (!r.ok || r.data !== "pong") throw new Error("ping: " + JSON.stringify(r))
    if (radium.version() !== process.argv[1]) throw new Error("version " + radium.version())
    console.log("node: radium " + radium.version() + " answers ping")
  ' "$version"
) || die "the Node package"

step "C: a program built with pkg-config against the SDK tarball"
mkdir -p "$scratch/c"
tar -C "$scratch/c" -xzf "$dist/radium-c-$version-linux-x86_64.tar.gz"
sdk=$scratch/c/radium-c-$version-linux-x86_64
"${clean_env[@]}" PKG_CONFIG_PATH="$sdk/lib/pkgconfig" bash -c '
  set -e
  gcc -std=c11 -Wall -Wextra -Werror $(pkg-config --cflags radium) "$1" -o "$2/hello" $(pkg-config --libs radium) -Wl,-rpath,"$3"
  gcc -std=c11 -Wall -Wextra -Werror -pthread $(pkg-config --cflags radium) "$1" -o "$2/hello-static" "$3/libradium.a" -lpthread -ldl -lm
  "$2/hello" "$4"
  "$2/hello-static" "$4"
' _ "$repo/tests/release/sdk_hello.c" "$scratch/c" "$sdk/lib" "$version" || die "the C SDK"

step "aarch64 under qemu-user: rad --version, a C program loading libradium.so"
sysroot=/usr/aarch64-linux-gnu
out=$(qemu-aarch64-static -L "$sysroot" "$dist/rad-$version-linux-aarch64-gnu" --version) || die "aarch64 rad did not run"
grep -q "$version" <<<"$out" || die "aarch64 rad --version said: $out"
echo "  aarch64 rad: $out"
tar -C "$scratch/c" -xzf "$dist/radium-c-$version-linux-aarch64.tar.gz"
sdk_arm=$scratch/c/radium-c-$version-linux-aarch64
zig=("$repo/.cache/release-venv/bin/python" -m ziglang)
"${zig[@]}" cc -target aarch64-linux-gnu.2.17 -std=c11 -Wall -Werror -I"$sdk_arm/include" \
  tests/release/sdk_hello.c -o "$scratch/c/hello-aarch64" -L"$sdk_arm/lib" -lradium \
  || die "could not cross-compile the C program for aarch64"
file -b "$scratch/c/hello-aarch64" | grep -q "ARM aarch64" || die "the C program is not aarch64"
QEMU_LD_PREFIX=$sysroot LD_LIBRARY_PATH="$sdk_arm/lib" qemu-aarch64-static "$scratch/c/hello-aarch64" "$version" \
  || die "the aarch64 C program did not load libradium.so"

step "VS Code: the linux-x64 .vsix installs into code-server and activates; its module and rad run"
tools=$(bash scripts/ensure-vscode.sh) || die "scripts/ensure-vscode.sh failed"
CODE_SERVER=$(sed -n 's/^CODE_SERVER=//p' <<<"$tools")
PLAYWRIGHT_CORE=$(sed -n 's/^PLAYWRIGHT_CORE=//p' <<<"$tools")
CHROMIUM=$(sed -n 's/^CHROMIUM=//p' <<<"$tools")
mkdir -p "$scratch/vscode"/{user,extensions,xdg-config,xdg-data,xdg-cache,ws}
"${clean_env[@]}" "$CODE_SERVER" --user-data-dir "$scratch/vscode/user" --extensions-dir "$scratch/vscode/extensions" \
  --install-extension "$dist/radium-$version-linux-x64.vsix" >"$scratch/vscode/install.log" 2>&1 \
  || { cat "$scratch/vscode/install.log"; die "code-server could not install the .vsix"; }
ext=$(ls -d "$scratch/vscode/extensions"/radium.radium-"$version"* 2>/dev/null | head -1)
[ -n "$ext" ] || die "the extension is not in the extensions folder: $(ls "$scratch/vscode/extensions")"
"${clean_env[@]}" node -e '
  const { loadRadium, radProgram } = require(process.argv[1] + "/out/native.js")
  const { radium, path } = loadRadium(process.argv[1], {})
  const rad = radProgram(process.argv[1], { PATH: "" })
  if (!path.endsWith("radium.node")) throw new Error("loaded " + path)
  if (!rad || !rad.endsWith("bin/rad")) throw new Error("rad: " + rad)
  console.log("vsix: radium " + radium.version() + " from " + path + ", rad " + rad)
' "$ext" || die "the installed extension does not load its module"
"$ext/bin/rad" --version | grep -q "$version" || die "the .vsix's rad does not run"
vport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
# No rad on the clean PATH: the notification's "rad reachable" is the .vsix's bin/rad.
"${clean_env[@]}" XDG_CONFIG_HOME="$scratch/vscode/xdg-config" XDG_DATA_HOME="$scratch/vscode/xdg-data" \
  XDG_CACHE_HOME="$scratch/vscode/xdg-cache" setsid "$CODE_SERVER" --bind-addr "127.0.0.1:$vport" --auth none \
  --disable-telemetry --disable-update-check --disable-workspace-trust --user-data-dir "$scratch/vscode/user" \
  --extensions-dir "$scratch/vscode/extensions" "$scratch/vscode/ws" >"$scratch/vscode/code-server.log" 2>&1 &
code_pid=$!
for _ in $(seq 150); do
  curl -fsS "http://127.0.0.1:$vport/healthz" >/dev/null 2>&1 && break
  kill -0 "$code_pid" 2>/dev/null || { cat "$scratch/vscode/code-server.log"; die "code-server exited"; }
  sleep 0.2
done
mkdir -p "$repo/target/release-test"
status=0
timeout 240 node tests/release/vscode_activate.js "$vport" "$scratch/vscode/ws" "$PLAYWRIGHT_CORE" "$CHROMIUM" \
  "$version" "$repo/target/release-test/vscode-show-version.png" || status=$?
kill -- "-$code_pid" 2>/dev/null || true
[ $status -eq 0 ] || { tail -30 "$scratch/vscode/code-server.log"; die "the extension did not activate (screenshot: target/release-test/vscode-show-version.png)"; }

step "the real Claude Code adapter edits through the static musl rad's MCP server (scripts/test-agents.sh claude-mcp)"
RAD="$dist/rad-$version-linux-x86_64-musl" timeout 600 bash scripts/test-agents.sh claude-mcp \
  || die "claude-mcp with the release's musl rad"

echo
echo "test-release: all checks passed in $(( $(date +%s) - started )) s"
