#!/usr/bin/env python3
"""Key-echo delay of a real Neovim (its TUI on a pseudo-terminal) while a
chat answer streams at a high rate, against the same Neovim idle.

A key is echoed when the terminal receives its character: the driver
replaces the single character of a buffer's line (`r<c>`, c never on the
screen otherwise) and times from writing `c` to reading it back, escape
sequences stripped. The answer comes from the example ACP agent's
`stream <n> <size>`: n chunks of `size` bytes, as fast as it can send them.

    python3 bindings/lua/bench/echo.py NVIM [n] [size] [keys]
"""
import os
import pty
import re
import select
import statistics
import sys
import tempfile
import threading
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
NVIM = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else "nvim"
N = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
SIZE = int(sys.argv[3]) if len(sys.argv) > 3 else 1024
KEYS = int(sys.argv[4]) if len(sys.argv) > 4 else 200
CHARS = "QZJKVWBMPX"
ESC = re.compile(rb"\x1b(\[[0-9;?<=>]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|[=>78DEHM])")

tmp = tempfile.mkdtemp()
home = os.path.join(tmp, "home")
ws = os.path.join(tmp, "ws")
os.makedirs(home)
os.makedirs(os.path.join(ws, ".git"))
with open(os.path.join(home, "agents.toml"), "w") as f:
    f.write('[[agents]]\nid = "example"\nprotocol = "acp"\ncommand = ["node", "%s/examples/acp-agent/agent.mjs"]\n' % REPO)
with open(os.path.join(ws, "bench.txt"), "w") as f:
    f.write("a\n")
with open(os.path.join(tmp, "init.lua"), "w") as f:
    f.write(f"""
vim.opt.rtp:prepend("{REPO}/bindings/lua")
vim.o.swapfile = false
vim.o.shortmess = vim.o.shortmess .. "I"
vim.o.laststatus = 2
vim.o.statusline = "%f %{{v:lua.require'radium'.statusline()}}"
vim.cmd("runtime plugin/radium.lua")
require("radium").setup({{ radium_home = "{home}", chat_agent = "example", notify = false }})
vim.api.nvim_create_autocmd("User", {{ pattern = "RadiumTurnEnd", callback = function()
  vim.api.nvim_echo({{ {{ "BENCH-TURN-END" }} }}, false, {{}})
end }})
""")

pid, fd = pty.fork()
if pid == 0:
    os.chdir(ws)
    os.environ["TERM"] = "xterm-256color"
    os.environ["RADIUM_HOME"] = home
    os.execv(NVIM, [NVIM, "-u", os.path.join(tmp, "init.lua"), "bench.txt"])

import fcntl, struct, termios  # noqa: E401
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 160, 0, 0))

# The reader looks for what the driver waits for in each chunk as it
# arrives (escape sequences stripped): a driver that fell behind the
# terminal's output would stall Neovim's writes and measure itself.
lock = threading.Lock()
watch = {}  # pattern -> threading.Event
seen_at = {}  # pattern -> time.monotonic() when seen
tail = b""


def reader():
    global tail
    while True:
        try:
            r, _, _ = select.select([fd], [], [], 0.5)
            if not r:
                continue
            data = os.read(fd, 1 << 20)
        except OSError:
            return
        if not data:
            return
        now = time.monotonic()
        text = ESC.sub(b"", tail + data)
        tail = data[-64:]
        with lock:
            for pattern, ev in list(watch.items()):
                if pattern in text:
                    seen_at[pattern] = now
                    ev.set()
                    del watch[pattern]


threading.Thread(target=reader, daemon=True).start()


def expect(pattern):
    ev = threading.Event()
    with lock:
        watch[pattern] = ev
        seen_at.pop(pattern, None)
    return ev


def wait_for(pattern, timeout=20.0):
    if not expect(pattern).wait(timeout):
        raise SystemExit("bench: %r never appeared" % pattern)


def send(keys):
    os.write(fd, keys.encode())


def echo_times(count, still=lambda: True, gap=0.03):
    times = []
    for i in range(count):
        if not still():
            break
        c = CHARS[i % len(CHARS)].encode()
        send("r")
        time.sleep(0.002)
        ev = expect(c)
        t0 = time.monotonic()
        send(c.decode())
        if ev.wait(5):
            times.append((seen_at[c] - t0) * 1000)
        else:
            with lock:
                watch.pop(c, None)
        time.sleep(gap)
    return times


def summary(label, ts):
    ts = sorted(ts)
    p = lambda q: ts[min(len(ts) - 1, int(round(q * (len(ts) - 1))))]  # noqa: E731
    print(f"{label}: {len(ts)} keys, p50 {p(0.5):.1f} ms, p99 {p(0.99):.1f} ms, max {ts[-1]:.1f} ms")
    return p(0.99)


ready = expect(b"bench.txt")
if not ready.wait(20):
    raise SystemExit("bench: Neovim did not start")
time.sleep(0.5)
idle = echo_times(100)

send(":RadiumChat\r")
wait_for(b"## You")
time.sleep(1.0)
for cmd in filter(None, os.environ.get("ECHO_CHAT_CMDS", "").split("|")):
    send(":" + cmd + "\r")  # e.g. ECHO_CHAT_CMDS="setlocal foldmethod=manual"
    time.sleep(0.1)
started = expect(b"yyyy")
send(f"ostream {N} {SIZE}\x1b:w\r")
if not started.wait(20):
    raise SystemExit("bench: the answer did not start")
t_start = time.monotonic()
send("\x17h")  # back to bench.txt, the chat streams on the right
time.sleep(0.05)
done = expect(b"BENCH-TURN-END")
busy = echo_times(KEYS, lambda: not done.is_set())
done.wait(120)
t_total = seen_at.get(b"BENCH-TURN-END", time.monotonic()) - t_start
send("\x1b:qa!\r")
time.sleep(0.3)

print(f"stream {N} x {SIZE} B = {N * SIZE / 1e6:.1f} MB in {t_total:.1f} s ({N * SIZE / 1e6 / t_total:.1f} MB/s into the chat buffer)")
summary("idle", idle)
p99 = summary("while streaming", busy)
if len(busy) < 20:
    print("bench: fewer than 20 keys landed while the answer streamed; use a longer stream")
sys.exit(0)
