#!/usr/bin/env python3
"""A scripted language server for radium's code-intelligence tests.

It speaks LSP over stdio for `.py` files, finds a name as whole words in
the open documents and the workspace's files, and shows the protocol cases
real servers cannot be made to show on demand. Every message it gets and
every answer to its own requests go to the log (--log), one JSON per line.

  --encoding utf-8|utf-16|utf-32  the position encoding it picks (utf-16)
  --mode a,b,...                  any of:
      stray       print non-header lines on stdout before its messages
      progress    report "indexing" progress for 0.5 s after initialized,
                  answering queries with [] until it is done
      requests    ask workspace/configuration, client/registerCapability,
                  window/workDoneProgress/create after initialized
      crash       exit (status 3) when asked for references or a rename
      hang        never answer references or a rename
      stale       send rename edits for a version the client never sent
      badstart    write to stderr and exit at once
      norename    offer no file renames
      badrefs     answer references with /dev/zero, the workspace's FIFO
                  `pipe.fifo` and a file outside the workspace besides
"""
import argparse
import json
import os
import re
import sys
import threading
import time
from urllib.parse import quote, unquote, urlparse

parser = argparse.ArgumentParser()
parser.add_argument("--encoding", default="utf-16")
parser.add_argument("--mode", default="")
parser.add_argument("--log", default=os.devnull)
args = parser.parse_args()
modes = set(filter(None, args.mode.split(",")))

if "badstart" in modes:
    sys.stderr.write("scripted server: cannot start (badstart mode)\n")
    sys.exit(2)

out = sys.stdout.buffer
lock = threading.Lock()
log_file = open(args.log, "a", encoding="utf-8")
docs = {}  # uri -> (version, text)
root = None
indexing = threading.Event()
next_id = [1000]


def log(kind, payload):
    log_file.write(json.dumps({"kind": kind, "payload": payload}) + "\n")
    log_file.flush()


def send(message):
    body = json.dumps(message).encode()
    with lock:
        if "stray" in modes:
            out.write(b"scripted server says hello\n")
        out.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        out.flush()


def read():
    length = None
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            if length is not None:
                return json.loads(sys.stdin.buffer.read(length))
            continue
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])


def units(text):
    if args.encoding == "utf-8":
        return len(text.encode("utf-8"))
    if args.encoding == "utf-32":
        return len(text)
    return len(text.encode("utf-16-le")) // 2


def offset(text, position):
    """The str index of an LSP position in text."""
    lines = text.split("\n")
    line = lines[position["line"]]
    count = 0
    for i, ch in enumerate(line):
        if count >= position["character"]:
            return sum(len(l) + 1 for l in lines[: position["line"]]) + i
        count += units(ch)
    return sum(len(l) + 1 for l in lines[: position["line"]]) + len(line)


def position(text, index):
    before = text[:index]
    line = before.count("\n")
    start = before.rfind("\n") + 1
    return {"line": line, "character": units(text[start:index])}


def path_of(uri):
    return unquote(urlparse(uri).path)


def uri_of(path):
    return "file://" + quote(path)


def text_of(uri):
    if uri in docs:
        return docs[uri][1]
    with open(path_of(uri), encoding="utf-8") as f:
        return f.read()


def workspace_uris():
    uris = set(docs)
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            if name.endswith(".py"):
                uris.add(uri_of(os.path.join(folder, name)))
    return sorted(uris)


def word_at(params):
    text = text_of(params["textDocument"]["uri"])
    at = offset(text, params["position"])
    for m in re.finditer(r"\w+", text):
        if m.start() <= at < m.end():
            return m.group()
    return None


def occurrences(name):
    for uri in workspace_uris():
        text = text_of(uri)
        for m in re.finditer(r"\b%s\b" % re.escape(name), text):
            yield uri, text, m


def rng(text, m):
    return {"start": position(text, m.start()), "end": position(text, m.end())}


def answer(message):
    method, params = message.get("method"), message.get("params") or {}
    if method == "initialize":
        global root
        root = path_of(params["rootUri"])
        caps = {
            "positionEncoding": args.encoding,
            "textDocumentSync": 1,
            "referencesProvider": True,
            "definitionProvider": True,
            "renameProvider": True,
        }
        if "norename" not in modes:
            caps["workspace"] = {"fileOperations": {"willRename": {"filters": [{"pattern": {"glob": "**/*.py"}}]}}}
        return {"capabilities": caps, "serverInfo": {"name": "scripted"}}
    if method == "shutdown":
        return None
    if method in ("textDocument/references", "textDocument/rename") and "crash" in modes:
        sys.exit(3)
    if method in ("textDocument/references", "textDocument/rename") and "hang" in modes:
        return "no answer"
    if indexing.is_set() and method in ("textDocument/references", "textDocument/definition"):
        return []
    if method == "textDocument/references":
        name = word_at(params)
        found = [{"uri": uri, "range": rng(text, m)} for uri, text, m in occurrences(name)]
        if "badrefs" in modes:
            first = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}
            for path in ("/dev/zero", os.path.join(root, "pipe.fifo"), os.path.join(os.path.dirname(root), "outside.py")):
                found.insert(0, {"uri": uri_of(path), "range": first})
        return found
    if method == "textDocument/definition":
        name = word_at(params)
        for uri, text, m in occurrences(name):
            if re.match(r"\s*=[^=]", text[m.end():]) or text[: m.start()].endswith("def "):
                return {"uri": uri, "range": rng(text, m)}
        return None
    if method == "textDocument/rename":
        name = word_at(params)
        changes = {}
        for uri, text, m in occurrences(name):
            changes.setdefault(uri, []).append({"range": rng(text, m), "newText": params["newName"]})
        document_changes = []
        for uri, edits in changes.items():
            version = docs[uri][0] if uri in docs else None
            if "stale" in modes:
                version = (version or 0) + 1
            document_changes.append({"textDocument": {"uri": uri, "version": version}, "edits": edits})
        return {"documentChanges": document_changes}
    if method == "workspace/willRenameFiles":
        old = os.path.splitext(os.path.basename(path_of(params["files"][0]["oldUri"])))[0]
        new = os.path.splitext(os.path.basename(path_of(params["files"][0]["newUri"])))[0]
        changes = {}
        for uri in workspace_uris():
            text = text_of(uri)
            for m in re.finditer(r"^(?:import|from) (%s)\b" % re.escape(old), text, re.M):
                span = {"start": position(text, m.start(1)), "end": position(text, m.end(1))}
                changes.setdefault(uri, []).append({"range": span, "newText": new})
        return {"changes": changes}
    raise KeyError(method)


def after_initialized():
    if "requests" in modes:
        for method, params in [
            ("workspace/configuration", {"items": [{"section": "scripted.check"}, {"section": "absent"}]}),
            ("client/registerCapability", {"registrations": [{"id": "1", "method": "workspace/didChangeWatchedFiles"}]}),
            ("window/workDoneProgress/create", {"token": "idx"}),
        ]:
            next_id[0] += 1
            send({"jsonrpc": "2.0", "id": next_id[0], "method": method, "params": params})
            log("asked", {"id": next_id[0], "method": method})
    if "progress" in modes:
        indexing.set()
        send({"jsonrpc": "2.0", "method": "$/progress", "params": {"token": "idx", "value": {"kind": "begin", "title": "indexing"}}})

        def finish():
            time.sleep(0.5)
            indexing.clear()
            send({"jsonrpc": "2.0", "method": "$/progress", "params": {"token": "idx", "value": {"kind": "end"}}})

        threading.Thread(target=finish, daemon=True).start()


def main():
    while True:
        message = read()
        if message is None:
            return
        log("got", message)
        method = message.get("method")
        if method is None:
            continue  # an answer to one of our requests (logged above)
        if method == "exit":
            sys.exit(0)
        if method == "initialized":
            after_initialized()
        elif method == "textDocument/didOpen":
            doc = message["params"]["textDocument"]
            docs[doc["uri"]] = (doc["version"], doc["text"])
        elif method == "textDocument/didChange":
            doc = message["params"]["textDocument"]
            docs[doc["uri"]] = (doc["version"], message["params"]["contentChanges"][-1]["text"])
        elif method == "textDocument/didClose":
            docs.pop(message["params"]["textDocument"]["uri"], None)
        if "id" in message:
            try:
                result = answer(message)
            except KeyError as e:
                send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "unknown %s" % e}})
                continue
            if result == "no answer":
                continue
            send({"jsonrpc": "2.0", "id": message["id"], "result": result})


main()
