"""`rad mcp` driven by a real MCP client (PyPI `mcp` 2.x, the reference
client) over stdio. Run by scripts/test-mcp.sh:

    python tests/mcp/test_rad_mcp.py <path of rad>

Each test starts its own `rad mcp` in a fresh workspace and RADIUM_HOME and
checks what an agent would see (tool results) and what the user would see
(the files on disk). Prints "N passed, M failed"; exits 1 on any failure.
"""

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

RAD = os.path.abspath(sys.argv[1])
TOOLS = ["view", "create", "str_replace", "insert", "undo", "redo", "solve_conflict", "read_var", "modify_var", "rename_file", "rewind"]
passed, failed = 0, 0


class Workspace:
    """A temporary workspace and RADIUM_HOME."""

    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="radium-mcp-")
        self.ws = os.path.join(self.root, "ws")
        self.home = os.path.join(self.root, "home")
        os.makedirs(self.ws)
        os.makedirs(self.home)

    def path(self, name):
        return os.path.join(self.ws, name)

    def read(self, name):
        with open(self.path(name), encoding="utf-8") as f:
            return f.read()

    def write(self, name, text):
        os.makedirs(os.path.dirname(self.path(name)), exist_ok=True)
        with open(self.path(name), "w", encoding="utf-8") as f:
            f.write(text)

    def env(self):
        env = dict(os.environ)
        env["RADIUM_HOME"] = self.home
        return env

    def params(self, *extra, pidfile=None):
        if pidfile:
            # The shell execs rad: the pid it writes is the server's.
            return StdioServerParameters(
                command="sh",
                args=["-c", f'echo $$ > "{pidfile}"; exec "{RAD}" mcp ' + " ".join(extra)],
                cwd=self.ws,
                env=self.env(),
            )
        return StdioServerParameters(command=RAD, args=["mcp", *extra], cwd=self.ws, env=self.env())

    def close(self):
        shutil.rmtree(self.root, ignore_errors=True)


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print(f"FAIL {what}", file=sys.stderr)


def text_of(result):
    return "".join(block.text for block in result.content if getattr(block, "type", "") == "text")


def tag_of(result):
    m = re.search(r"\[tag: ([^\]]+)\]", text_of(result))
    return m.group(1) if m else None


async def with_client(ws, body, *extra, pidfile=None):
    async with stdio_client(ws.params(*extra, pidfile=pidfile)) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            return await body(session, init)


async def test_tools_and_schemas():
    ws = Workspace()

    async def body(session, init):
        check(init.server_info.name == "radium", f"server name: {init.server_info}")
        check("undo" in (init.instructions or ""), f"instructions: {init.instructions}")
        listed = await session.list_tools()
        names = [t.name for t in listed.tools]
        check(names == TOOLS, f"tools: {names}")
        by = {t.name: t for t in listed.tools}
        sr = by["str_replace"].input_schema
        check(sr["type"] == "object" and sr["required"] == ["path", "old", "new"], f"str_replace schema: {sr}")
        check(set(sr["properties"]) == {"path", "old", "new"}, f"str_replace properties: {sr}")
        check(sr.get("additionalProperties") is False, "unknown arguments are refused by the schema")
        check(by["insert"].input_schema["properties"]["line"]["type"] == "integer", "insert line is an integer")
        check(by["solve_conflict"].input_schema["properties"]["resolution"]["enum"] == ["ours", "theirs", "both", "text"],
              "solve_conflict resolutions")
        check(by["view"].annotations.read_only_hint is True, "view is read-only")
        check(by["create"].annotations.read_only_hint is False, "create writes")
        for t in listed.tools:
            check(len(t.description or "") > 30, f"{t.name} has a description an agent can follow")

    await with_client(ws, body)
    ws.close()


async def test_create_replace_undo():
    ws = Workspace()
    ws.write("src/app.py", "def greet():\n    return 'hi'\n")

    async def body(session, _):
        r = await session.call_tool("view", {"path": "src/app.py"})
        check(not r.is_error and "     1\tdef greet():" in text_of(r), f"view: {text_of(r)}")
        check(r.structured_content["data"]["lines"] == 2, f"structured view: {r.structured_content}")
        r = await session.call_tool("create", {"path": "notes/todo.md", "content": "- ship\n"})
        check(not r.is_error and tag_of(r), f"create: {text_of(r)}")
        check(ws.read("notes/todo.md") == "- ship\n", "the created file is on disk")
        r = await session.call_tool("str_replace", {"path": "src/app.py", "old": "'hi'", "new": "'hello'"})
        check(not r.is_error, f"str_replace: {text_of(r)}")
        check(ws.read("src/app.py") == "def greet():\n    return 'hello'\n", "str_replace changed the file")
        check(r.structured_content["data"]["line"] == 2, f"structured str_replace: {r.structured_content}")
        r = await session.call_tool("insert", {"path": "src/app.py", "line": 0, "text": "# app\n"})
        check(ws.read("src/app.py").startswith("# app\ndef greet"), "insert at the top")
        r = await session.call_tool("undo", {})
        check(not r.is_error and "insert" in text_of(r), f"undo: {text_of(r)}")
        check(ws.read("src/app.py") == "def greet():\n    return 'hello'\n", "undo took the insert back")
        r = await session.call_tool("undo", {})
        check(ws.read("src/app.py") == "def greet():\n    return 'hi'\n", "undo took the str_replace back")
        r = await session.call_tool("redo", {})
        check(ws.read("src/app.py") == "def greet():\n    return 'hello'\n", "redo brought it back")
        # The edits are radium changesets: `rad undo` in a terminal sees them.
        out = subprocess.run([RAD, "undo"], cwd=ws.ws, env=ws.env(), capture_output=True, text=True)
        check(out.returncode == 0, f"rad undo: {out.stderr}")
        check(ws.read("src/app.py") == "def greet():\n    return 'hi'\n", "rad undo took back the server's edit")

    await with_client(ws, body)
    subprocess.run([RAD, "shutdown"], cwd=ws.ws, env=ws.env(), capture_output=True)
    ws.close()


async def test_code_tools_read_rename_and_move():
    ws = Workspace()
    # No language server: the syntax tree answers, whatever is installed.
    with open(os.path.join(ws.home, "lsp.toml"), "w") as f:
        f.write("[python]\ndisabled = true\n")
    ws.write("pkg/__init__.py", "")
    ws.write("pkg/util.py", "# total is kept here\ntotal = 1\n")
    ws.write("main.py", "from pkg.util import total\nprint('total', total)\n")

    async def body(session, _):
        r = await session.call_tool("read_var", {"file": "main.py", "var": "total"})
        text = text_of(r)
        check(not r.is_error and "variable: total\n" in text and "engine: syntax\n" in text, f"read_var: {text}")
        check("occurrences: 3 in 2 files" in text and "pkg/util.py:2:1: total = 1  (definition)" in text, f"read_var: {text}")
        check(r.structured_content["data"]["definition"]["file"] == "pkg/util.py", f"structured: {r.structured_content}")
        r = await session.call_tool("modify_var", {"file": "pkg/util.py", "from": "total", "to": "grand"})
        check(not r.is_error and "edits: 3 in 2 files (applied)" in text_of(r), f"modify_var: {text_of(r)}")
        check(ws.read("main.py") == "from pkg.util import grand\nprint('total', grand)\n", "renamed in code, not in the string")
        check(ws.read("pkg/util.py") == "# total is kept here\ngrand = 1\n", "renamed, not in the comment")
        r = await session.call_tool("rename_file", {"from": "pkg/util.py", "to": "pkg/helpers.py"})
        check(not r.is_error and "file: pkg/util.py -> pkg/helpers.py" in text_of(r), f"rename_file: {text_of(r)}")
        check(ws.read("main.py").startswith("from pkg.helpers import grand\n"), "the import follows the move")
        check(not os.path.exists(ws.path("pkg/util.py")), "the old file is gone")
        r = await session.call_tool("undo", {})
        check(os.path.exists(ws.path("pkg/util.py")) and ws.read("main.py").startswith("from pkg.util import grand"), "undo takes the move back")
        r = await session.call_tool("undo", {})
        check(ws.read("main.py") == "from pkg.util import total\nprint('total', total)\n", "undo takes the rename back in every file")
        r = await session.call_tool("read_var", {"file": "main.py", "var": "nothing"})
        check(r.is_error and "does not occur" in text_of(r) and "not_found" in text_of(r), f"missing name: {text_of(r)}")
        r = await session.call_tool("rename_file", {"from": "main.py", "to": "pkg/__init__.py"})
        check(r.is_error and "already exists" in text_of(r), f"existing destination: {text_of(r)}")
        # Two uses on one line: `column` picks the one meant (the second).
        r = await session.call_tool("read_var", {"file": "main.py", "var": "total", "line": 2, "column": 16})
        check(not r.is_error and "main.py:2:16: print('total', total)" in text_of(r), f"read_var at a column: {text_of(r)}")
        r = await session.call_tool("read_var", {"file": "main.py", "var": "total", "line": 2, "column": 9})
        check(r.is_error and "not at line 2, column 9" in text_of(r), f"a column where the name is a string: {text_of(r)}")

    await with_client(ws, body)
    ws.close()


async def test_rewind_undoes_two_calls():
    ws = Workspace()
    ws.write("a.txt", "one\n")

    async def body(session, _):
        r = await session.call_tool("view", {"path": "a.txt"})
        start = tag_of(r)
        await session.call_tool("str_replace", {"path": "a.txt", "old": "one", "new": "two"})
        await session.call_tool("create", {"path": "b.txt", "content": "b\n"})
        check(ws.read("a.txt") == "two\n" and os.path.exists(ws.path("b.txt")), "two edits made")
        r = await session.call_tool("rewind", {"tag": start})
        check(not r.is_error, f"rewind: {text_of(r)}")
        check("Undoing 2 operation(s)" in text_of(r), f"rewind says what it undid: {text_of(r)}")
        check(ws.read("a.txt") == "one\n", "rewind restored a.txt")
        check(not os.path.exists(ws.path("b.txt")), "rewind removed the created file")
        r = await session.call_tool("rewind", {"tag": "zzzz-notatag"})
        check(r.is_error and "cannot rewind to `zzzz-notatag`" in text_of(r), f"an unknown tag is an error: {text_of(r)}")
        check(ws.read("a.txt") == "one\n", "an unknown tag changes nothing")
        # The conversation is still this server's: its edits undo as before.
        await session.call_tool("create", {"path": "c.txt", "content": "c\n"})
        r = await session.call_tool("rewind", {"tag": start})
        check("Undoing 1 operation(s)" in text_of(r) and not os.path.exists(ws.path("c.txt")),
              f"a rewind after a refused one: {text_of(r)}")

    await with_client(ws, body)
    ws.close()


async def test_tag_continues_a_conversation():
    ws = Workspace()
    ws.write("a.txt", "one\n")

    async def first(session, _):
        r = await session.call_tool("str_replace", {"path": "a.txt", "old": "one", "new": "two"})
        return tag_of(r)

    tag = await with_client(ws, first)

    async def second(session, _):
        # A server started with --tag continues that conversation: undo
        # takes back the first server's edit.
        r = await session.call_tool("undo", {})
        check(not r.is_error, f"undo in the continued conversation: {text_of(r)}")

    await with_client(ws, second, "--tag", tag)
    check(ws.read("a.txt") == "one\n", "the continued conversation's undo")
    ws.close()


async def test_unknown_or_foreign_tags_undo_nothing():
    ws = Workspace()
    ws.write("a.txt", "one\n")

    async def user(session, _):
        r = await session.call_tool("create", {"path": "user.txt", "content": "u\n"})
        return tag_of(r)

    users = await with_client(ws, user)

    async def forgotten(session, _):
        # A server whose tag the project no longer knows (forgotten after
        # 1,000 newer ones): its undo is an error and takes back nothing,
        # not another client's latest edit.
        r = await session.call_tool("undo", {})
        check(r.is_error and "unknown tag" in text_of(r) and "nothing undone" in text_of(r),
              f"undo with a forgotten tag: {text_of(r)}")
        r = await session.call_tool("redo", {})
        check(r.is_error and "nothing redone" in text_of(r), f"redo with a forgotten tag: {text_of(r)}")

    await with_client(ws, forgotten, "--tag", users[:4] + "-zzzzzzzz")
    check(ws.read("user.txt") == "u\n", "the user's file is untouched")

    async def other(session, _):
        r = await session.call_tool("str_replace", {"path": "a.txt", "old": "one", "new": "two"})
        check(not r.is_error, f"an edit of this server: {text_of(r)}")
        # A tag of the user's conversation is not this server's to rewind to.
        r = await session.call_tool("rewind", {"tag": users})
        check(r.is_error and "another conversation" in text_of(r), f"rewind to another conversation's tag: {text_of(r)}")
        # The server keeps its own conversation: its undo takes back its own edit.
        r = await session.call_tool("undo", {})
        check(not r.is_error, f"undo after the refused rewind: {text_of(r)}")
        check(ws.read("a.txt") == "one\n", "the server's own edit is undone")
        check(ws.read("user.txt") == "u\n", "the user's file is kept")

    await with_client(ws, other)

    async def fresh(session, _):
        r = await session.call_tool("rewind", {"tag": users})
        check(r.is_error and "no conversation yet" in text_of(r), f"rewind before any call: {text_of(r)}")
        r = await session.call_tool("undo", {})
        check(r.is_error and "no edit yet" in text_of(r), f"undo before any call: {text_of(r)}")

    await with_client(ws, fresh)
    check(ws.read("user.txt") == "u\n", "the user's file is still there")
    ws.close()


async def test_hook_denies_a_call():
    ws = Workspace()
    ws.write("a.txt", "one\n")
    # An extension with a before_tool script hook that stops str-replace
    # (exit 2: stop, stderr is the reason), installed for the user.
    ext = os.path.join(ws.root, "review-ext")
    os.makedirs(os.path.join(ext, "hooks"))
    with open(os.path.join(ext, "radium-extension.json"), "w") as f:
        json.dump({"name": "review", "version": "1.0.0", "components": {"hooks": ["hooks/*.toml"]}}, f)
    with open(os.path.join(ext, "hooks", "h.toml"), "w") as f:
        f.write('[[hooks]]\nname = "review"\ntype = "before_tool"\nmatcher = "str-replace"\nscript = "deny.sh"\n')
    script = os.path.join(ext, "deny.sh")
    with open(script, "w") as f:
        f.write("#!/bin/sh\ncat >/dev/null\necho 'edits to a.txt need a review' >&2\nexit 2\n")
    os.chmod(script, 0o755)
    out = subprocess.run([RAD, "ext", "install", ext], cwd=ws.ws, env=ws.env(), capture_output=True, text=True)
    check(out.returncode == 0, f"rad ext install: {out.stderr}")

    async def body(session, _):
        r = await session.call_tool("str_replace", {"path": "a.txt", "old": "one", "new": "two"})
        check(r.is_error and "edits to a.txt need a review" in text_of(r), f"denied with the reason: {text_of(r)}")
        check(ws.read("a.txt") == "one\n", "a denied call changes nothing")
        r = await session.call_tool("create", {"path": "c.txt", "content": "c\n"})
        check(not r.is_error, f"another tool still runs: {text_of(r)}")

    await with_client(ws, body)
    ws.close()


async def test_bad_input():
    ws = Workspace()
    ws.write("a.txt", "one\n")
    outside = os.path.join(ws.root, "outside.txt")

    async def body(session, _):
        cases = [
            ("create", {"path": "../outside.txt", "content": "x"}, "outside"),
            ("create", {"path": outside, "content": "x"}, "outside"),
            ("view", {"path": "missing.txt"}, "missing.txt"),
            ("view", {}, "needs `path`"),
            ("view", {"path": "a.txt", "colour": "red"}, "takes no argument `colour`"),
            ("insert", {"path": "a.txt", "line": "two", "text": "x"}, "`line` must be a integer"),
            ("insert", {"path": "a.txt", "line": -1, "text": "x"}, "at least 0"),
            ("solve_conflict", {"path": "a.txt", "id": 0, "resolution": "mine"}, "one of ours, theirs"),
            ("str_replace", {"path": "a.txt", "old": "absent", "new": "x"}, "no match for `old`"),
            ("create", {"path": "a.txt", "content": "x"}, "exists"),
            ("no_such_tool", {}, "unknown tool `no_such_tool`"),
        ]
        for name, args, expected in cases:
            r = await session.call_tool(name, args)
            check(r.is_error and expected in text_of(r), f"{name} {args}: expected an error with {expected!r}, got {text_of(r)!r}")
        check(not os.path.exists(outside), "nothing was written outside the workspace")
        check(ws.read("a.txt") == "one\n", "bad calls changed nothing")
        r = await session.call_tool("view", {"path": "a.txt"})
        check(not r.is_error, "the server keeps running after bad calls")

    await with_client(ws, body)
    ws.close()


def test_disconnect_mid_call():
    """A client that writes a call and goes away: the server exits, the
    write is whole or absent, and no process is left."""
    ws = Workspace()
    big = "x" * (8 << 20)
    proc = subprocess.Popen([RAD, "mcp"], cwd=ws.ws, env=ws.env(), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "create", "arguments": {"path": "big.txt", "content": big}}},
    ]
    proc.stdin.write("".join(json.dumps(m) + "\n" for m in lines).encode())
    proc.stdin.close()
    proc.stdout.close()
    try:
        code = proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        code = None
    check(code is not None, "the server exits when its client goes away")
    path = ws.path("big.txt")
    check(not os.path.exists(path) or ws.read("big.txt") == big, "the file is whole or absent")
    leftovers = [n for n in os.listdir(ws.ws) if n.startswith(".radium-")]
    check(leftovers == [], f"no temporary file is left: {leftovers}")
    ws.close()


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


async def test_thousand_calls_without_growth():
    ws = Workspace()
    ws.write("a.txt", "".join(f"line {i}\n" for i in range(50)))
    pidfile = os.path.join(ws.root, "pid")

    async def body(session, _):
        for _ in range(1000):  # warm-up: the allocator's pools fill
            await session.call_tool("view", {"path": "a.txt"})
        pid = int(open(pidfile).read())
        before = rss_kib(pid)
        started = time.monotonic()
        for i in range(1000):
            r = await session.call_tool("view", {"path": "a.txt"})
            if r.is_error:
                check(False, f"call {i}: {text_of(r)}")
                return
        per_call_ms = (time.monotonic() - started)  # seconds for 1000 calls = ms a call
        after = rss_kib(pid)
        check(after - before < 1024, f"1000 calls grew the server by {after - before} KiB")
        print(f"  1000 view calls: {per_call_ms:.2f} ms each through the Python client; "
              f"server RSS {before} KiB -> {after} KiB")

    await with_client(ws, body, pidfile=pidfile)
    ws.close()


def run(name, fn):
    global failed
    try:
        result = fn()
        if asyncio.iscoroutine(result):
            asyncio.run(result)
    except Exception:
        failed += 1
        print(f"FAIL [{name}] raised:\n{traceback.format_exc()}", file=sys.stderr)


if __name__ == "__main__":
    for name, fn in list(globals().items()):
        if name.startswith("test_") and callable(fn):
            print(name)
            run(name, fn)
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
