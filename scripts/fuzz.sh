#!/usr/bin/env bash
# Fuzzes radium-core's entry points (docs/fuzzing.md): builds the cargo-fuzz
# targets on nightly, then runs each for SECONDS (default 60) in a sandbox
# where the whole file system is read-only except a scratch folder (the
# engine's RADIUM_HOME, HOME and working directory) and the target's
# fuzz/corpus and fuzz/artifacts folders: the `request` and `daemon_frame`
# targets carry out the requests the fuzzer writes, edits and `apply` with
# absolute paths included.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#
# Seeds come from tests/fuzz-corpus/<target>/ (read only); what libFuzzer
# finds goes to fuzz/corpus/<target>/, crashes to fuzz/artifacts/<target>/.
# Not part of CI. FUZZ_NO_SANDBOX=1 runs without the sandbox (only on a
# machine with nothing to lose).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(request extract hooks_toml daemon_frame)

command -v cargo-fuzz >/dev/null || { echo "fuzz: install cargo-fuzz first: cargo install cargo-fuzz" >&2; exit 1; }
cargo +nightly fuzz build
host=$(rustc +nightly -vV | sed -n 's/^host: //p')

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# Runs "$@" with only the folders listed before `--` writable (the working
# directory is entered again inside, through the writable mounts).
sandboxed() {
    if [ "${FUZZ_NO_SANDBOX:-0}" = 1 ]; then
        while [ "$1" != -- ]; do shift; done
        shift
        "$@"
        return
    fi
    local as_root=()
    [ "$(id -u)" = 0 ] || as_root=(--map-root-user)
    unshare "${as_root[@]}" --mount bash -c '
        set -e
        mount --make-rprivate /
        while [ "$1" != -- ]; do mount --bind "$1" "$1"; shift; done
        shift
        mount -o remount,bind,ro /
        cd "$PWD"
        exec "$@"' sandbox "$@"
}

for target in "${targets[@]}"; do
    bin=$root/fuzz/target/$host/release/$target
    [ -x "$bin" ] || { echo "fuzz: no target $target" >&2; exit 1; }
    mkdir -p "fuzz/corpus/$target" "fuzz/artifacts/$target"
    rm -rf "$scratch/work"
    mkdir -p "$scratch/work/home" "$scratch/work/cwd" "$scratch/work/tmp"
    echo "==> $target: $seconds s"
    (
        cd "$scratch/work/cwd"
        RADIUM_HOME=$scratch/work/home HOME=$scratch/work/home TMPDIR=$scratch/work/tmp \
            sandboxed "$scratch/work" "$root/fuzz/corpus/$target" "$root/fuzz/artifacts/$target" -- \
            "$bin" -max_total_time="$seconds" -timeout=10 -print_final_stats=1 \
            -artifact_prefix="$root/fuzz/artifacts/$target/" \
            "$root/fuzz/corpus/$target" "$root/tests/fuzz-corpus/$target"
    )
done
