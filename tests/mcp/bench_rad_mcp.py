"""`rad mcp` speed: start-up (process start to the answer of `initialize`)
and one `view` round trip of a small file over stdio, each the median of
several runs. A raw JSON-RPC client (one line out, one line back) so that the
figure is the server's, not a client library's. Run by scripts/bench-mcp.sh:

    python3 tests/mcp/bench_rad_mcp.py <path of rad>
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


def main():
    root = tempfile.mkdtemp(prefix="radium-mcp-bench-")
    ws = os.path.join(root, "ws")
    os.makedirs(ws)
    with open(os.path.join(ws, "small.py"), "w") as f:
        f.write("".join(f"def f{i}():\n    return {i}\n" for i in range(20)))
    env = dict(os.environ, RADIUM_HOME=os.path.join(root, "home"))

    starts = []
    for _ in range(20):
        p, elapsed = start(ws, env)
        starts.append(elapsed * 1e3)
        p.stdin.close()
        p.wait()
    print(f"rad mcp start-up to the initialize answer: {statistics.median(starts):.1f} ms (median of 20)")

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
    print(f"view of a 40-line file, round trip over stdio: {statistics.median(rounds):.0f} us per call (median of 5 x 1000)")
    p.stdin.close()
    p.wait()
    shutil.rmtree(root, ignore_errors=True)


main()
