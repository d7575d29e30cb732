#!/usr/bin/env python3
"""Resident memory of `cm serve` after a realistic session, then after one 5 MB ctx_index.

usage: tests/bench/server_rss.py <path to cm> [<5 MB markdown file>]
A temp HOME, data root and project; one hook run fills the plugin cache first (as on an
installed machine); the MCP session then runs every fixture in
tests/fixtures through ctx_execute (with an intent), 30 searches and one batch.
Prints VmRSS / RssAnon / RssFile from /proc after each phase.
"""
import json
import os
import subprocess
import sys
import tempfile

cm = os.path.abspath(sys.argv[1])
document = sys.argv[2] if len(sys.argv) > 2 else None
fixtures = os.path.join(os.path.dirname(__file__), "..", "fixtures")
home, project = tempfile.mkdtemp(), tempfile.mkdtemp()
env = dict(os.environ, HOME=home, CONTEXT_MODE_DIR=home + "/root", CONTEXT_MODE_PROJECT_DIR=project)
# An installed cm has its plugins precompiled by the first hook run: do the same, so the
# server deserializes them instead of paging in Cranelift to compile them.
payload = {"session_id": "warm", "hook_event_name": "PreToolUse", "tool_name": "Bash",
           "tool_input": {"command": "ls"}, "cwd": project}
subprocess.run([cm, "hook", "claude-code", "pretooluse"], input=json.dumps(payload).encode(),
               env=env, cwd=project, stdout=subprocess.DEVNULL, check=True)
server = subprocess.Popen([cm, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=project)
next_id = 0


def request(method, params):
    global next_id
    next_id += 1
    line = json.dumps({"jsonrpc": "2.0", "id": next_id, "method": method, "params": params})
    server.stdin.write((line + "\n").encode())
    server.stdin.flush()
    return json.loads(server.stdout.readline())


def call(name, arguments):
    return request("tools/call", {"name": name, "arguments": arguments})


def memory(phase):
    with open(f"/proc/{server.pid}/status") as status:
        fields = {k: v.strip() for k, v in (l.split(":", 1) for l in status if ":" in l)}
    print(f"{phase}: VmRSS {fields['VmRSS']}, RssAnon {fields['RssAnon']}, RssFile {fields['RssFile']}")


request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "claude-code", "version": "1"}})
server.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
server.stdin.flush()
memory("after initialize")
for name in sorted(os.listdir(fixtures)):
    path = os.path.abspath(os.path.join(fixtures, name))
    call("ctx_execute", {"language": "shell", "code": f"cat '{path}'", "intent": "errors"})
for _ in range(30):
    call("ctx_search", {"queries": ["error", "react hooks"]})
call("ctx_batch_execute", {"commands": ["seq 1 100000", "ls -la /usr/bin"], "queries": ["99999"]})
memory("after a realistic session")
if document:
    with open(document) as text:
        call("ctx_index", {"content": text.read(), "source": "big"})
    memory("after one 5 MB ctx_index")
server.stdin.close()
server.wait()
