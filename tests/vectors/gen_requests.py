#!/usr/bin/env python3
"""Writes requests.txt from extract.jsonl and context.jsonl: for doors without a
JSON parser (C, shell), each vector is two lines, the request and the expected
response, both as compact JSON with sorted keys (the form the engine answers in).
A Rust test (core/tests/vectors.rs) checks this file is up to date."""
import json, os
here = os.path.dirname(os.path.abspath(__file__))
def dump(v):
    return json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
out = []
for line in open(os.path.join(here, "extract.jsonl"), encoding="utf-8"):
    c = json.loads(line)
    out.append(dump({"command": "extract", "args": {"text": c["answer"]}}))
    out.append(dump({"ok": True, "data": {"original_output": c["answer"], "code_blocks": c["code_blocks"], "block_count": c["block_count"]}}))
for line in open(os.path.join(here, "context.jsonl"), encoding="utf-8"):
    c = json.loads(line)
    out.append(dump({"command": "context", "args": c["context"]}))
    out.append(dump(c["response"]))
with open(os.path.join(here, "requests.txt"), "w", encoding="utf-8") as f:
    f.write("\n".join(out) + "\n")
