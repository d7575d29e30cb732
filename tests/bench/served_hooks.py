#!/usr/bin/env python3
"""Claude Code's tool hooks: a `cm hook` process per call against the same call answered
by the running `cm serve` (`ctx_hook`, ADR 27), same payloads, one run (issue 18).

    usage: tests/bench/served_hooks.py CM [--rounds N]

One throw-away HOME, data root and project (`Bash(sudo *)` denied, a 50 KB big.txt). A
stand-in `claude` on PATH says 2.1.332, so `cm setup --agents claude-code` writes the
`mcp_tool` entries; their `input` templates are filled from each golden payload the way
Claude Code interpolates them. A real `cm serve` is the MCP peer, driven over its stdio
exactly as Claude Code drives it (one JSON-RPC line out, one back).

Interleaved rounds, so the machine's drift hits all alike: `cm --version` (the process
floor), then each case as a `cm hook` process (the agent's side: spawn, write stdin, read
stdout, exit), then the same case as a `tools/call ctx_hook` round trip (the agent's side:
write the request line, read the reply line). The server's own time per served call is
read back from its hook timings (`<event> (served)` in `cm stats`). Prints markdown.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
GOLDEN = os.path.join(REPO, "tests", "golden", "claude-code")
CASES = ["curl", "git-status", "read-large", "webfetch", "grep", "sudo-chain", "posttooluse-bash"]


def interpolate(template, payload):
    if isinstance(template, str):
        def value(match):
            found = payload
            for key in match.group(1).split("."):
                found = found.get(key) if isinstance(found, dict) else None
            if found is None:
                return ""
            if isinstance(found, (dict, list)):
                return json.dumps(found, separators=(",", ":"))
            return str(found)
        return re.sub(r"\$\{([a-zA-Z_][a-zA-Z0-9_.]*)\}", value, template)
    if isinstance(template, list):
        return [interpolate(t, payload) for t in template]
    if isinstance(template, dict):
        return {k: interpolate(v, payload) for k, v in template.items()}
    return template


def p50(samples):
    return statistics.median(samples) * 1000


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("cm")
    parser.add_argument("--rounds", type=int, default=100)
    args = parser.parse_args()
    cm = os.path.abspath(args.cm)
    base = tempfile.mkdtemp(prefix="cm-served-bench-")
    home, root, project, bin_dir = (os.path.join(base, d) for d in ("home", "data", "project", "bin"))
    for d in (home, root, project, bin_dir, os.path.join(project, ".claude")):
        os.makedirs(d, exist_ok=True)
    with open(os.path.join(project, ".claude", "settings.json"), "w") as f:
        json.dump({"permissions": {"deny": ["Bash(sudo *)"]}}, f)
    with open(os.path.join(project, "big.txt"), "w") as f:
        f.write("2026-11-30T04:00:00Z INFO request served in 12 ms path=/api/items\n" * 800)
    claude = os.path.join(bin_dir, "claude")
    with open(claude, "w") as f:
        f.write("#!/bin/sh\necho '2.1.332 (Claude Code)'\n")
    os.chmod(claude, 0o755)
    env = {"PATH": bin_dir + ":" + os.environ["PATH"], "HOME": home, "CONTEXT_MODE_DIR": root}
    subprocess.run([cm, "setup", "--agents", "claude-code", "--yes"], env=env, cwd=project,
                   check=True, capture_output=True)
    settings = json.load(open(os.path.join(home, ".claude", "settings.json")))
    templates = {}
    for name, cli in (("PreToolUse", "pretooluse"), ("PostToolUse", "posttooluse")):
        handler = settings["hooks"][name][0]["hooks"][0]
        assert handler["type"] == "mcp_tool", handler
        templates[cli] = handler["input"]

    cases = []
    for case in CASES:
        text = open(os.path.join(GOLDEN, case + ".stdin.json")).read().replace("__PROJECT__", project)
        payload = json.loads(text)
        event = payload["hook_event_name"].lower()
        cases.append((case, event, text.encode(), interpolate(templates[event], payload)))

    server = subprocess.Popen([cm, "serve"], env=env, cwd=project, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    next_id = [0]

    def request(method, params):
        next_id[0] += 1
        line = json.dumps({"jsonrpc": "2.0", "id": next_id[0], "method": method, "params": params})
        server.stdin.write(line.encode() + b"\n")
        server.stdin.flush()
        while True:
            reply = json.loads(server.stdout.readline())
            if reply.get("id") == next_id[0]:
                return reply

    request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                           "clientInfo": {"name": "claude-code", "version": "2.1.332"}})
    server.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    server.stdin.flush()

    floor, command, served = [], {c[0]: [] for c in cases}, {c[0]: [] for c in cases}
    mismatches = 0
    for round_ in range(args.rounds):
        start = time.perf_counter()
        subprocess.run([cm, "--version"], env=env, cwd=project, capture_output=True)
        floor.append(time.perf_counter() - start)
        order = cases[round_ % len(cases):] + cases[:round_ % len(cases)]
        for case, event, stdin, arguments in order:
            start = time.perf_counter()
            ran = subprocess.run([cm, "hook", "claude-code", event], input=stdin, env=env,
                                 cwd=project, capture_output=True)
            command[case].append(time.perf_counter() - start)
            start = time.perf_counter()
            reply = request("tools/call", {"name": "ctx_hook", "arguments": arguments})
            served[case].append(time.perf_counter() - start)
            text = "".join(b.get("text", "") for b in reply["result"]["content"])
            if text != ran.stdout.decode():
                mismatches += 1

    stats = subprocess.run([cm, "stats"], env=env, cwd=project, capture_output=True, text=True).stdout
    server.stdin.close()
    server.wait(timeout=10)

    print(f"rounds: {args.rounds}; `cm --version` floor p50 {p50(floor):.2f} ms; "
          f"replies that differed between the transports: {mismatches}\n")
    print("| case | event | `cm hook` process p50 | served round trip p50 | process / served |")
    print("|---|---|---|---|---|")
    for case, event, _, _ in cases:
        c, s = p50(command[case]), p50(served[case])
        print(f"| {case} | {event} | {c:.2f} ms | {s:.3f} ms | {c / s:.1f}× |")
    print("\nInside the server (`cm stats`, hook latency, served rows):\n")
    print("```")
    for line in stats.splitlines():
        if "(served)" in line or line.strip().startswith("platform"):
            print(line)
    print("```")
    return 0 if mismatches == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
