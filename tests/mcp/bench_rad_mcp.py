"""`rad mcp` speed: start-up (process start to the answer of `initialize`)
and one `view` round trip of a small file over stdio, each the median of
several runs; then the same `view` after CALLS command-line calls without a
tag (`rad view`, each a conversation and a dog tag of its own; default
10,000), when the project's session holds its 1,000 tags. A raw JSON-RPC client (one line out, one line back) so that the
figure is the server's, not a client library's. Run by scripts/bench-mcp.sh:

    python3 tests/mcp/bench_rad_mcp.py <path of rad> [CALLS]
"""

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

RAD = os.path.abspath(sys.argv[1])
CALLS = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}}


def start(ws, env):
    t0 = time.perf_counter()
    p = subprocess.Popen([RAD, "mcp"], cwd=ws, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    p.stdin.write((json.dumps(INIT) + "\n").encode())
    p.stdin.flush()
    line = p.stdout.readline()
    elapsed = time.perf_counter() - t0
    assert b'"serverInfo"' in line, line
    p.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    p.stdin.flush()
    return p, elapsed


def view_rounds(ws, env):
    """A `view` round trip in microseconds: the median of 5 x 1000 calls."""
    p, _ = start(ws, env)
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "view", "arguments": {"path": "small.py"}}}
    rounds = []
    for r in range(5):
        t0 = time.perf_counter()
        for i in range(1000):
            call["id"] = r * 1000 + i + 1
            p.stdin.write((json.dumps(call) + "\n").encode())
            p.stdin.flush()
            line = p.stdout.readline()
            assert b'"isError":false' in line, line
        rounds.append((time.perf_counter() - t0) * 1e3)  # ms for 1000 = us per call
    p.stdin.close()
    p.wait()
    return statistics.median(rounds)


def main():
    root = tempfile.mkdtemp(prefix="radium-mcp-bench-")
    ws = os.path.join(root, "ws")
    os.makedirs(ws)
    with open(os.path.join(ws, "small.py"), "w") as f:
        f.write("".join(f"def f{i}():\n    return {i}\n" for i in range(20)))
    # The daemon that `rad view` starts ends soon after the last call.
    env = dict(os.environ, RADIUM_HOME=os.path.join(root, "home"), RADIUM_DAEMON_IDLE="5")

    starts = []
    for _ in range(20):
        p, elapsed = start(ws, env)
        starts.append(elapsed * 1e3)
        p.stdin.close()
        p.wait()
    print(f"rad mcp start-up to the initialize answer: {statistics.median(starts):.1f} ms (median of 20)")

    fresh = view_rounds(ws, env)
    print(f"view of a 40-line file, round trip over stdio: {fresh:.0f} us per call (median of 5 x 1000)")

    t0 = time.perf_counter()
    for _ in range(CALLS):
        subprocess.run([RAD, "view", "small.py"], cwd=ws, env=env, stdout=subprocess.DEVNULL, check=True)
    each = (time.perf_counter() - t0) / CALLS * 1e3
    home = env["RADIUM_HOME"]
    size = sum(os.path.getsize(os.path.join(home, d, "session.json"))
               for d in os.listdir(home) if os.path.exists(os.path.join(home, d, "session.json")))
    piled = view_rounds(ws, env)
    print(f"the same view after {CALLS} `rad view` calls without a tag ({each:.1f} ms each; session file {size} bytes): {piled:.0f} us per call (median of 5 x 1000)")
    shutil.rmtree(root, ignore_errors=True)


main()
