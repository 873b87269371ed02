#!/usr/bin/env python3
"""Key-echo delay of a real Neovim (its TUI on a pseudo-terminal) while a
chat answer floods in, drawn by radium and by two pure-Lua ACP clients
(bench/lua_client.lua: "percall" as codecompanion.nvim draws, "joined"
joining each stdout read), in turns in one run.

A key is echoed when the terminal receives its character: the driver
replaces the single character of a buffer's line (`r<c>`, c never on the
screen otherwise) and times from writing `c` to reading it back, escape
sequences stripped. The answers come from the example ACP agent:
  a  prose 20000 64       20,000 chunks of 64 B (lines of 78 B)
  b  toollines 4000 95    4,000 short lines of a command's output
  c  prose 20000 1024     1 KiB chunks at full speed (20 MB)
  d  prose 1280 4096      a 5 MB answer (in 4 KiB chunks)
For each client and case: the turn's time (from the prompt's :w to its
end), the echo p50/p99/max, and the Neovim process's CPU time over the
turn (all threads: /proc/<pid>/stat; its main thread:
/proc/<pid>/task/<pid>/stat), of the Neovim that runs the plugins: the
`--embed` child of the TUI process when there is one.

    python3 bindings/lua/bench/echo.py NVIM [--rounds N] [--clients radium,percall,joined] [--load] [case...]
    (client radium-before: the plugin copied to $RADIUM_BEFORE)
"""
import os
import pty
import re
import select
import subprocess
import sys
import tempfile
import threading
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
CHARS = "QZJKVWBMPX"
ESC = re.compile(rb"\x1b(\[[0-9;?<=>]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|[=>78DEHM])")
CASES = {
    "a": "prose 20000 64",
    "b": "toollines 4000 95",
    "c": "prose 20000 1024",
    "d": "prose 1280 4096",
}
TICK = os.sysconf("SC_CLK_TCK")


def cpu(pid, task=False):
    """CPU seconds (user + system) of `pid` (all its threads), or of its
    main thread alone."""
    path = f"/proc/{pid}/task/{pid}/stat" if task else f"/proc/{pid}/stat"
    with open(path) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def server(pid):
    """The Neovim that runs the plugins: the TUI's `--embed` child, if any."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            kids = [int(k) for k in f.read().split()]
    except OSError:
        kids = []
    for k in kids:
        try:
            with open(f"/proc/{k}/cmdline", "rb") as f:
                if b"--embed" in f.read().split(b"\0"):
                    return k
        except OSError:
            pass
    return pid


def init_lua(tmp, home, client):
    agent = f'{{ "node", "{REPO}/examples/acp-agent/agent.mjs" }}'
    common = f"""
vim.o.swapfile = false
vim.o.shortmess = vim.o.shortmess .. "I"
vim.o.laststatus = 2
"""
    if client.startswith("radium"):
        # "radium-before": the plugin copied to $RADIUM_BEFORE (a build
        # before a change, measured in turns with the one after it).
        rtp = os.environ["RADIUM_BEFORE"] if client == "radium-before" else f"{REPO}/bindings/lua"
        body = f"""
vim.opt.rtp:prepend("{rtp}")
vim.o.statusline = "%f %{{v:lua.require'radium'.statusline()}}"
vim.cmd("runtime plugin/radium.lua")
require("radium").setup({{ radium_home = "{home}", chat_agent = "example", notify = false }})
vim.api.nvim_create_autocmd("User", {{ pattern = "RadiumTurnEnd", callback = function()
  vim.api.nvim_echo({{ {{ "BENCH-TURN-END" }} }}, false, {{}})
end }})
"""
    else:
        body = f"""
package.path = "{REPO}/bindings/lua/bench/?.lua;" .. package.path
require("lua_client").setup({{ mode = "{client}", agent = {agent} }})
"""
    path = os.path.join(tmp, f"init-{client}.lua")
    with open(path, "w") as f:
        f.write(common + body)
    return path



class Driver:
    """A Neovim TUI on a pseudo-terminal: a reader thread watches its output
    for what the driver waits for (escape sequences stripped), so that a
    driver behind the terminal never stalls Neovim's writes."""

    def __init__(self, fd):
        self.fd = fd
        self.lock = threading.Lock()
        self.watch = {}  # pattern -> threading.Event
        self.seen_at = {}  # pattern -> time.monotonic() when seen
        self.tail = b""
        self.stopped = False
        self.thread = threading.Thread(target=self.reader, daemon=True)
        self.thread.start()

    def stop(self):
        """Ends the reader (before its descriptor is closed and reused)."""
        self.stopped = True
        self.thread.join(5)

    def reader(self):
        while not self.stopped:
            try:
                r, _, _ = select.select([self.fd], [], [], 0.1)
                if not r:
                    continue
                data = os.read(self.fd, 1 << 20)
            except OSError:
                return
            if not data:
                return
            now = time.monotonic()
            text = ESC.sub(b"", self.tail + data)
            self.tail = data[-64:]
            with self.lock:
                for pattern, ev in list(self.watch.items()):
                    if pattern in text:
                        self.seen_at[pattern] = now
                        ev.set()
                        del self.watch[pattern]

    def expect(self, pattern):
        ev = threading.Event()
        with self.lock:
            self.watch[pattern] = ev
            self.seen_at.pop(pattern, None)
        return ev

    def wait_for(self, pattern, timeout=20.0):
        if not self.expect(pattern).wait(timeout):
            raise SystemExit("bench: %r never appeared" % pattern)

    def send(self, keys):
        os.write(self.fd, keys.encode())

    def echo_times(self, count, still=lambda: True, gap=0.03):
        times = []
        for i in range(count):
            if not still():
                break
            c = CHARS[i % len(CHARS)].encode()
            self.send("r")
            time.sleep(0.002)
            ev = self.expect(c)
            t0 = time.monotonic()
            self.send(c.decode())
            if ev.wait(2):
                times.append((self.seen_at[c] - t0) * 1000)
            else:
                with self.lock:
                    self.watch.pop(c, None)
            time.sleep(gap)
        return times


def run(nvim, client, case, gap, idle_keys=0):
    """One Neovim, one turn of `case` drawn by `client`: its figures."""
    prompt = CASES[case]
    tmp = tempfile.mkdtemp()
    home = os.path.join(tmp, "home")
    ws = os.path.join(tmp, "ws")
    os.makedirs(home)
    os.makedirs(os.path.join(ws, ".git"))
    with open(os.path.join(home, "agents.toml"), "w") as f:
        f.write('[[agents]]\nid = "example"\nprotocol = "acp"\ncommand = ["node", "%s/examples/acp-agent/agent.mjs"]\n' % REPO)
    with open(os.path.join(ws, "bench.txt"), "w") as f:
        f.write("a\n")
    init = init_lua(tmp, home, client)
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(ws)
        os.environ["TERM"] = "xterm-256color"
        os.environ["RADIUM_HOME"] = home
        os.execv(nvim, [nvim, "-u", init, "bench.txt"])
    import fcntl, struct, termios  # noqa: E401
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 160, 0, 0))
    d = Driver(fd)
    try:
        if not d.expect(b"bench.txt").wait(20):
            raise SystemExit("bench: Neovim did not start")
        time.sleep(0.5)
        idle = d.echo_times(idle_keys)
        d.send(":RadiumChat\r")
        d.wait_for(b"## You")
        time.sleep(1.0)
        done = d.expect(b"BENCH-TURN-END")
        nv = server(pid)
        cpu0, main0 = cpu(nv), cpu(nv, True)
        t0 = time.monotonic()
        d.send(f"o{prompt}\x1b:w\r")
        time.sleep(0.05)
        d.send("\x17h")  # back to bench.txt, the chat streams on the right
        time.sleep(0.05)
        busy = d.echo_times(10**6, lambda: not done.is_set(), gap)
        if not done.wait(300):
            raise SystemExit(f"bench: the turn of {prompt!r} did not end ({client})")
        turn = d.seen_at[b"BENCH-TURN-END"] - t0
        cpu1, main1 = cpu(nv), cpu(nv, True)
        d.send("\x1b:qa!\r")
        time.sleep(0.3)
        return {"turn": turn, "cpu": cpu1 - cpu0, "main": main1 - main0, "keys": busy, "idle": idle}
    finally:
        try:
            os.kill(pid, 9)
        except OSError:
            pass
        os.waitpid(pid, 0)
        d.stop()
        os.close(fd)


def pct(ts, q):
    ts = sorted(ts)
    return ts[min(len(ts) - 1, int(round(q * (len(ts) - 1))))] if ts else float("nan")


def main():
    args = sys.argv[1:]
    nvim = os.path.abspath(args.pop(0)) if args and not args[0].startswith("-") else "nvim"
    rounds, clients, load, cases, gap = 3, ["radium", "percall", "joined"], False, [], 0.02
    while args:
        a = args.pop(0)
        if a == "--rounds":
            rounds = int(args.pop(0))
        elif a == "--clients":
            clients = args.pop(0).split(",")
        elif a == "--load":
            load = True
        elif a in CASES:
            cases.append(a)
        else:
            raise SystemExit(f"bench: unknown argument {a!r} (cases: {', '.join(CASES)})")
    cases = cases or list(CASES)
    busy = []
    if load:
        # Both cores kept busy the whole run, as by `stress -c 2`.
        busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() or 2)]
    try:
        results, idle = {}, []
        for r in range(rounds):
            for case in cases:
                # Each round starts with another client: none always runs first.
                for i in range(len(clients)):
                    client = clients[(i + r) % len(clients)]
                    res = run(nvim, client, case, gap, 0 if idle else 100)
                    idle = idle or res["idle"]
                    print(f"  round {r + 1} {case} {client}: turn {res['turn']:.2f} s, CPU {res['cpu']:.2f} s (main {res['main']:.2f}), {len(res['keys'])} keys", file=sys.stderr, flush=True)
                    results.setdefault((case, client), []).append(res)
        print(f"idle Neovim: {len(idle)} keys, echo p50 {pct(idle, .5):.1f} ms, p99 {pct(idle, .99):.1f} ms, max {max(idle):.1f} ms")
        print(f"{rounds} round(s), clients in turns{' on a loaded machine (%d busy loops)' % len(busy) if busy else ''}")
        print("| case | client | turn s | total CPU s | main-thread CPU s | keys | echo p50 / p99 / max ms |")
        print("|---|---|---|---|---|---|---|")
        for case in cases:
            for client in clients:
                rs = results[(case, client)]
                keys = [k for x in rs for k in x["keys"]]
                span = lambda f: "%.2f–%.2f" % (min(x[f] for x in rs), max(x[f] for x in rs)) if len(rs) > 1 else "%.2f" % rs[0][f]  # noqa: E731
                print(f"| {case} `{CASES[case]}` | {client} | {span('turn')} | {span('cpu')} | {span('main')} | {len(keys)} | "
                      f"{pct(keys, .5):.1f} / {pct(keys, .99):.1f} / {max(keys) if keys else float('nan'):.1f} |")
    finally:
        for p in busy:
            p.kill()
            p.wait()


main()
