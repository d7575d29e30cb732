#!/usr/bin/env python3
"""Issue 31's rows, for two `cm` builds interleaved in one run, with the `cm --version`
floor measured in the same rounds (the machine drifts by up to 40 % within an hour, so
read the ratios, not the absolute figures, when comparing runs).

    usage: tests/bench/perf_rows.py BASE NEW [--rounds N]

Each round, for each build (order swapped every round), in a throw-away HOME, data root
and project:
- start: spawn → `initialize` reply, p50 of 10 spawns (each killed after the reply);
- a fresh server: `initialize`, `tools/list`, then at once a trivial shell `ctx_execute`
  (the first of the server), 30 more (p50), `ctx_index` of a 5 MB markdown file into the
  empty store, 50 `ctx_search` queries on it (p50), `ctx_index` of 1 MB as `content`,
  90 other calls (searches, executes, small indexes), `ctx_index` of another 5 MB file
  (the "used store" row), and the server's RSS at the end (VmRSS);
- the `cm --version` p50 of 10 runs.
Prints the median over rounds per row and build, and NEW / BASE.
"""

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

WORDS = ("ingest worker retries batch backoff policy queue letter dead attempts schema "
         "migration index search vocabulary trigram snippet rank fusion proximity chunk "
         "heading fence table column row cursor page cache store journal session token "
         "parser lexer render layout widget router handler request response stream buffer "
         "socket timeout deadline thread mutex channel future promise callback closure").split()

QUERIES = ["retry backoff policy", "dead letter queue", "schema migration index",
           "trigram snippet rank", "cursor page cache", "router handler request",
           "socket timeout deadline", "mutex channel thread", "promise callback closure",
           "vocabulary fusion proximity", "journal session token", "parser lexer render"]


def markdown(path, megabytes, seed):
    """A markdown document of `megabytes`: headings, prose, lists and code fences."""
    rng = random.Random(seed)
    out, size, section = [], 0, 0
    while size < megabytes * 1024 * 1024:
        section += 1
        part = [f"\n## {rng.choice(WORDS).title()} {rng.choice(WORDS)} {section}\n\n"]
        for _ in range(rng.randint(2, 5)):
            part.append(" ".join(rng.choice(WORDS) for _ in range(rng.randint(20, 60))) + ".\n\n")
        if section % 3 == 0:
            part.append("".join(f"- {rng.choice(WORDS)} {rng.choice(WORDS)}\n" for _ in range(5)) + "\n")
        if section % 4 == 0:
            part.append("```rust\nfn " + rng.choice(WORDS) + "() -> u32 { " + str(section) + " }\n```\n")
        text = "".join(part)
        out.append(text)
        size += len(text)
    with open(path, "w") as f:
        f.write(f"# Generated document {seed}\n" + "".join(out))


class Server:
    def __init__(self, cm, env, cwd):
        self.proc = subprocess.Popen([cm, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=env, cwd=cwd)
        self.next_id = 0

    def send(self, method, params=None):
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()
        while True:
            reply = json.loads(self.proc.stdout.readline())
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]

    def notify(self, method):
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": method}).encode() + b"\n")
        self.proc.stdin.flush()

    def initialize(self):
        return self.send("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                        "clientInfo": {"name": "claude-code", "version": "2.1.332"}})

    def call(self, name, arguments):
        result = self.send("tools/call", {"name": name, "arguments": arguments})
        if result.get("isError"):
            raise RuntimeError(f"{name}: {result['content'][0]['text']}")
        return result["content"][0]["text"]

    def rss_mb(self):
        for line in open(f"/proc/{self.proc.pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def timed(fn):
    start = time.perf_counter()
    value = fn()
    return (time.perf_counter() - start) * 1000, value


def p50(values):
    return statistics.median(values)


def one_round(cm, work, corpus):
    home, data, project = (os.path.join(work, d) for d in ("home", "data", "project"))
    for d in (home, project):
        os.makedirs(d, exist_ok=True)
    env = dict(os.environ, HOME=home, CONTEXT_MODE_DIR=data)
    row = {}
    floor = [timed(lambda: subprocess.run([cm, "--version"], env=env, capture_output=True))[0]
             for _ in range(10)]
    row["cm --version p50 (floor)"] = p50(floor)
    starts = []
    for _ in range(10):
        server = Server(cm, env, project)
        starts.append(timed(server.initialize)[0])
        server.proc.kill()
        server.proc.wait()
    row["spawn → initialize p50"] = p50(starts)

    for name in ("doc-a.md", "doc-b.md"):
        shutil.copy(os.path.join(corpus, name), os.path.join(project, name))
    server = Server(cm, env, project)
    server.initialize()
    server.notify("notifications/initialized")
    server.send("tools/list")
    shell = {"language": "shell", "code": "echo hi"}
    row["first ctx_execute"], out = timed(lambda: server.call("ctx_execute", shell))
    assert "hi" in out, out
    row["trivial ctx_execute p50"] = p50([timed(lambda: server.call("ctx_execute", shell))[0]
                                          for _ in range(30)])
    size_mb = os.path.getsize(os.path.join(project, "doc-a.md")) / 1e6
    ms, _ = timed(lambda: server.call("ctx_index", {"path": "doc-a.md"}))
    row["ctx_index 5 MB markdown, empty store (MB/s)"] = size_mb / (ms / 1000)
    searches = [timed(lambda q=q: server.call("ctx_search", {"queries": [q]}))[0]
                for q in (QUERIES * 5)[:50]]
    row["ctx_search p50 (50 queries, 5 MB)"] = p50(searches)
    content = open(os.path.join(corpus, "content.md")).read()
    ms, _ = timed(lambda: server.call("ctx_index", {"content": content, "source": "content 1 MB"}))
    row["ctx_index 1 MB content (MB/s)"] = len(content.encode()) / 1e6 / (ms / 1000)
    for i in range(90):
        kind = i % 3
        if kind == 0:
            server.call("ctx_search", {"queries": [QUERIES[i % len(QUERIES)]]})
        elif kind == 1:
            server.call("ctx_execute", {"language": "shell", "code": f"echo call {i}"})
        else:
            server.call("ctx_index", {"content": f"# Note {i}\n\n{' '.join(WORDS[i % 20:])}\n",
                                      "source": f"note {i}"})
    size_mb = os.path.getsize(os.path.join(project, "doc-b.md")) / 1e6
    ms, _ = timed(lambda: server.call("ctx_index", {"path": "doc-b.md"}))
    row["ctx_index 5 MB after 90 other calls (MB/s)"] = size_mb / (ms / 1000)
    row["RSS after the run (MB)"] = server.rss_mb()
    server.close()
    return row


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("base")
    parser.add_argument("new")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="cm-perf-rows-")
    corpus = os.path.join(work, "corpus")
    os.makedirs(corpus)
    markdown(os.path.join(corpus, "doc-a.md"), 5, 1)
    markdown(os.path.join(corpus, "doc-b.md"), 5, 2)
    markdown(os.path.join(corpus, "content.md"), 1, 3)
    builds = {"base": args.base, "new": args.new}
    rows = {name: [] for name in builds}
    load = [os.getloadavg()[0]]
    for r in range(args.rounds):
        order = list(builds) if r % 2 == 0 else list(builds)[::-1]
        for name in order:
            rows[name].append(one_round(builds[name], os.path.join(work, f"{name}-{r}"), corpus))
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    load.append(os.getloadavg()[0])
    print(f"base `{args.base}`, new `{args.new}`; {args.rounds} rounds; "
          f"load average {load[0]:.1f} → {load[1]:.1f}\n")
    print("| figure | base | new | new / base |")
    print("|---|---|---|---|")
    for key in rows["base"][0]:
        b = p50([row[key] for row in rows["base"]])
        n = p50([row[key] for row in rows["new"]])
        print(f"| {key} | {b:.2f} | {n:.2f} | {n / b:.2f} |")
    floor = {name: p50([row["cm --version p50 (floor)"] for row in rows[name]]) for name in builds}
    start = {name: p50([row["spawn → initialize p50"] for row in rows[name]]) for name in builds}
    print(f"\nstart / floor: base {start['base'] / floor['base']:.2f}×, "
          f"new {start['new'] / floor['new']:.2f}×")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
