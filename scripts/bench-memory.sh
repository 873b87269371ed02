#!/usr/bin/env bash
# The memory of streamed turns (figures in BENCHMARKS.md, "Memory of
# streamed turns"): the engine's bench (heap and resident size per turn of
# 16-256 MB, a slow door, 1 GB in one session), then one door, `rad chat`
# streaming 16 and 256 MB from the example agent, its peak resident size
# from /usr/bin/time. RAD=<path> measures that `rad` instead of building one.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "commit $(git rev-parse --short HEAD); load:$(uptime | sed 's/.*load average//')"
cargo bench -p radium-core --bench session_memory "$@"
if [[ -z "${RAD:-}" ]]; then
  cargo build --release -p radium-cli --quiet
  RAD="$PWD/target/release/rad"
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/ws" "$tmp/home"
printf '[[agents]]\nid = "example"\nprotocol = "acp"\ncommand = ["node", "%s"]\n' \
  "$PWD/examples/acp-agent/agent.mjs" > "$tmp/home/agents.toml"
# rad's own peak (VmHWM, sampled until it exits): /usr/bin/time would count
# the agent's process too, which rad reaps.
for mb in 16 256; do
  (cd "$tmp/ws" && RADIUM_HOME="$tmp/home" "$RAD" chat example --prompt "stream $((mb * 256)) 4096" > "$tmp/out" 2> "$tmp/err") &
  sleep 0.05
  # The subshell may have become rad itself.
  pid=$!
  [[ "$(cat "/proc/$pid/comm" 2> /dev/null)" == rad ]] || pid="$(pgrep -n -x rad -P $! || true)"
  hwm=0
  while [[ -n "$pid" ]] && kill -0 "$pid" 2> /dev/null; do
    now="$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status" 2> /dev/null || true)"
    [[ -n "$now" ]] && hwm="$now"
    sleep 0.1
  done
  wait $! || { cat "$tmp/err"; exit 1; }
  echo "rad chat, one turn of $mb MB in 4 KiB chunks: $(wc -c < "$tmp/out") bytes out, peak resident size $((hwm / 1024)) MB"
done
