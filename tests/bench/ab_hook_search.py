#!/usr/bin/env python3
"""Interleaved A/B of two `cm` binaries: whole-process hook latency, ctx_search latency and a
trivial shell ctx_execute round trip.

The bench machine's speed drifts by up to 40 % within an hour, so the two binaries are never
timed in separate runs: every round runs each hook payload once with A and once with B (order
alternating per round), and every search round sends the same query to A's server and to B's.

    usage: tests/bench/ab_hook_search.py CM_A CM_B [--rounds N] [--searches N]

Each binary gets its own throw-away HOME, data root and project (the same files), a live
`cm serve` (so redirects are issued) and a warm `.cwasm` cache. Hooks: five Claude Code golden
payloads from tests/golden/claude-code/. Search: every committed fixture of tests/fixtures/
indexed through ctx_index, then mixed queries through ctx_search. Execute: `echo hi` in shell
through ctx_execute. Prints markdown tables.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
HOOK_CASES = ["curl", "git-status", "read-large", "webfetch", "task-launch"]
QUERIES = [
    "useEffect cleanup", "connection refused", "TypeError undefined", "middleware",
    "edge function deploy", "404", "tailwind dark mode", "pull request review",
    "serverless", "authentication token", "git rebase", "error TS2322",
]


class Side:
    def __init__(self, label, binary, work):
        self.label = label
        self.binary = os.path.abspath(binary)
        self.dir = os.path.join(work, label)
        self.home = os.path.join(self.dir, "home")
        self.data = os.path.join(self.dir, "data")
        self.project = os.path.join(self.dir, "project")
        for d in (self.home, self.data, os.path.join(self.project, ".claude")):
            os.makedirs(d, exist_ok=True)
        line = "2026-11-30T04:00:00Z INFO request served in 12 ms path=/api/items status=200\n"
        with open(os.path.join(self.project, "big.txt"), "w") as f:
            f.write(line * (51200 // len(line) + 1))
        with open(os.path.join(self.project, ".claude", "settings.json"), "w") as f:
            f.write('{"permissions":{"deny":["Bash(sudo *)"]}}')
        self.env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": self.home,
            "CONTEXT_MODE_DIR": self.data,
            "CONTEXT_MODE_PROJECT_DIR": self.project,
        }
        self.payloads = {}
        golden = os.path.join(REPO, "tests", "golden", "claude-code")
        for case in HOOK_CASES:
            with open(os.path.join(golden, case + ".stdin.json")) as f:
                self.payloads[case] = f.read().replace("__PROJECT__", self.project).encode()
        self.server = subprocess.Popen(
            [self.binary, "serve"], cwd=self.project, env=self.env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )
        self.next_id = 1
        self.rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                "clientInfo": {"name": "bench", "version": "1"}})
        self.server.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        self.server.stdin.flush()

    def rpc(self, method, params):
        request = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        self.next_id += 1
        self.server.stdin.write(json.dumps(request).encode() + b"\n")
        self.server.stdin.flush()
        while True:
            reply = json.loads(self.server.stdout.readline())
            if reply.get("id") == request["id"]:
                return reply

    def tool(self, name, arguments):
        return self.rpc("tools/call", {"name": name, "arguments": arguments})

    def hook_ms(self, case):
        start = time.perf_counter()
        subprocess.run([self.binary, "hook", "claude-code", "pretooluse"], cwd=self.project,
                       env=self.env, input=self.payloads[case], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=True)
        return (time.perf_counter() - start) * 1000

    def search_ms(self, query):
        start = time.perf_counter()
        reply = self.tool("ctx_search", {"queries": [query], "limit": 3})
        elapsed = (time.perf_counter() - start) * 1000
        assert "result" in reply and not reply["result"].get("isError"), reply
        return elapsed

    def execute_ms(self):
        start = time.perf_counter()
        reply = self.tool("ctx_execute", {"language": "shell", "code": "echo hi"})
        elapsed = (time.perf_counter() - start) * 1000
        assert "hi" in reply["result"]["content"][0]["text"], reply
        return elapsed

    def close(self):
        self.server.stdin.close()
        self.server.wait(timeout=10)


def p(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * q))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--searches", type=int, default=300)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="cm-ab-")
    try:
        sides = [Side("A", args.a, work), Side("B", args.b, work)]
        floor = {s.label: [] for s in sides}
        hooks = {(s.label, c): [] for s in sides for c in HOOK_CASES}
        for side in sides:  # warm the .cwasm cache and the store
            for case in HOOK_CASES:
                for _ in range(5):
                    side.hook_ms(case)
        for r in range(args.rounds):
            order = sides if r % 2 == 0 else sides[::-1]
            for side in order:
                start = time.perf_counter()
                subprocess.run([side.binary, "--version"], stdout=subprocess.DEVNULL, check=True)
                floor[side.label].append((time.perf_counter() - start) * 1000)
                for case in HOOK_CASES:
                    hooks[(side.label, case)].append(side.hook_ms(case))

        fixtures = os.path.join(REPO, "tests", "fixtures")
        for side in sides:
            # ctx_index confines paths to the project: index a copy inside it.
            shutil.copytree(fixtures, os.path.join(side.project, "fixtures"))
            for name in sorted(os.listdir(fixtures)):
                reply = side.tool("ctx_index", {"path": os.path.join("fixtures", name), "source": name})
                assert not reply["result"].get("isError"), reply
        searches = {s.label: [] for s in sides}
        for side in sides:  # warm-up
            for q in QUERIES:
                side.search_ms(q)
        for i in range(args.searches):
            q = QUERIES[i % len(QUERIES)]
            order = sides if i % 2 == 0 else sides[::-1]
            for side in order:
                searches[side.label].append(side.search_ms(q))
        executes = {s.label: [] for s in sides}
        for side in sides:  # warm-up: runtime detection, first spawn
            for _ in range(5):
                side.execute_ms()
        for i in range(args.searches):
            order = sides if i % 2 == 0 else sides[::-1]
            for side in order:
                executes[side.label].append(side.execute_ms())
        for side in sides:
            side.close()

        print(f"A = {args.a}\nB = {args.b}\n")
        print(f"Hooks, `cm hook claude-code pretooluse`, {args.rounds} interleaved rounds")
        print("| payload | A p50 ms | B p50 ms | A p90 ms | B p90 ms | B/A p50 |")
        print("|---|---|---|---|---|---|")
        rows = [("`cm --version` (floor)", floor["A"], floor["B"])]
        rows += [(c, hooks[("A", c)], hooks[("B", c)]) for c in HOOK_CASES]
        for name, a, b in rows:
            pa, pb = statistics.median(a), statistics.median(b)
            print(f"| {name} | {pa:.2f} | {pb:.2f} | {p(a, .9):.2f} | {p(b, .9):.2f} | {pb / pa:.2f} |")
        a, b = searches["A"], searches["B"]
        print(f"\nctx_search through `cm serve` (every tests/fixtures file indexed), {args.searches} interleaved calls")
        print("| | A p50 ms | B p50 ms | A p90 ms | B p90 ms | B/A p50 |")
        print("|---|---|---|---|---|---|")
        pa, pb = statistics.median(a), statistics.median(b)
        print(f"| one query, limit 3 | {pa:.2f} | {pb:.2f} | {p(a, .9):.2f} | {p(b, .9):.2f} | {pb / pa:.2f} |")
        a, b = executes["A"], executes["B"]
        pa, pb = statistics.median(a), statistics.median(b)
        print(f"| ctx_execute shell `echo hi` | {pa:.2f} | {pb:.2f} | {p(a, .9):.2f} | {p(b, .9):.2f} | {pb / pa:.2f} |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
