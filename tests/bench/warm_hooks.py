#!/usr/bin/env python3
"""Hooks answered in time (issue 30, ADR 35): the rows of the issue's table for two
builds of `cm`, interleaved in one run, with each figure as a ratio to its own floor.

    usage: tests/bench/warm_hooks.py BASE NEW [--rounds N] [--index-mb M] [--only ROWS]

Each build gets its own throw-away HOMEs, data roots and projects (`Bash(sudo *)`
denied, a 50 KB big.txt), a stand-in `claude` saying 2.1.332 and `cm setup --agents
claude-code` run first (so every built-in is compiled in the cache and the `mcp_tool`
entries are written; their `input` templates are filled the way Claude Code fills
them). Every round runs each row for BASE then NEW, the order swapped every round.

Rows (ROWS, comma-separated: burst, index, steady):
- burst: a fresh `cm serve`, 16 `ctx_hook` calls written at once (the golden payloads,
  each in a session of its own) 1 s after `initialize` and, on another fresh server,
  at once after it; the time until the last reply. Then the same 16 again on the now
  warm server: the floor. Also the first single served hook of a fresh server.
- index: a served hook sent 0.1 s after a `ctx_index` of a M MB directory started (a
  fresh project per round), against the same hook idle on the same server just before.
- steady: per round, `cm --version` (the process floor), each golden case as a `cm hook`
  process and as a served round trip on a long-lived server, first in the goldens' own
  sessions (a session switch on every call), then all in one session as one agent sends
  them; the in-server p50 from the server's own hook timings (`cm stats`, both kinds).
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

# The golden `input` templates are filled the way the older bench fills them.
from served_hooks import interpolate

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
GOLDEN = os.path.join(REPO, "tests", "golden", "claude-code")
CASES = ["curl", "git-status", "read-large", "webfetch", "grep", "sudo-chain",
         "read-small", "posttooluse-bash"]
STEADY_CASES = ["curl", "git-status", "read-large", "webfetch", "grep", "sudo-chain",
                "posttooluse-bash"]


def ms(seconds):
    return seconds * 1000


def med(samples):
    return statistics.median(samples) if samples else float("nan")


class Config:
    """One build in one throw-away HOME / data root / project, set up as a user would."""

    def __init__(self, cm, work, label):
        self.cm = os.path.abspath(cm)
        self.dir = os.path.join(work, label)
        self.home = os.path.join(self.dir, "home")
        self.root = os.path.join(self.dir, "data")
        self.project = os.path.join(self.dir, "project")
        bin_dir = os.path.join(self.dir, "bin")
        for d in (self.home, self.root, bin_dir):
            os.makedirs(d, exist_ok=True)
        self.new_project(self.project)
        claude = os.path.join(bin_dir, "claude")
        with open(claude, "w") as f:
            f.write("#!/bin/sh\necho '2.1.332 (Claude Code)'\n")
        os.chmod(claude, 0o755)
        self.env = {"PATH": bin_dir + ":" + os.environ["PATH"], "HOME": self.home,
                    "CONTEXT_MODE_DIR": self.root}
        subprocess.run([self.cm, "setup", "--agents", "claude-code", "--yes"], env=self.env,
                       cwd=self.project, check=True, capture_output=True)
        settings = json.load(open(os.path.join(self.home, ".claude", "settings.json")))
        self.templates = {}
        for name, cli in (("PreToolUse", "pretooluse"), ("PostToolUse", "posttooluse")):
            handler = settings["hooks"][name][0]["hooks"][0]
            assert handler["type"] == "mcp_tool", handler
            self.templates[cli] = handler["input"]

    @staticmethod
    def new_project(project):
        os.makedirs(os.path.join(project, ".claude"), exist_ok=True)
        with open(os.path.join(project, ".claude", "settings.json"), "w") as f:
            json.dump({"permissions": {"deny": ["Bash(sudo *)"]}}, f)
        line = "2026-11-30T04:00:00Z INFO request served in 12 ms path=/api/items status=200\n"
        with open(os.path.join(project, "big.txt"), "w") as f:
            f.write(line * (50 * 1024 // len(line) + 1))
        with open(os.path.join(project, "small.txt"), "w") as f:
            f.write("just a few bytes\n")

    def case(self, case, project=None, session=None):
        """(event, stdin bytes, ctx_hook arguments) of a golden case in `project`."""
        project = project or self.project
        text = open(os.path.join(GOLDEN, case + ".stdin.json")).read().replace("__PROJECT__", project)
        payload = json.loads(text)
        if session:
            # The session is the transcript's (Claude Code keeps it across a resume).
            payload["session_id"] = session
            payload["transcript_path"] = f"/tmp/{session}.jsonl"
        event = payload["hook_event_name"].lower()
        return event, json.dumps(payload).encode(), interpolate(self.templates[event], payload)


class Server:
    def __init__(self, cfg, project=None):
        self.proc = subprocess.Popen([cfg.cm, "serve"], env=cfg.env, cwd=project or cfg.project,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.next_id = 0
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "claude-code", "version": "2.1.332"}})
        self.write({"jsonrpc": "2.0", "method": "notifications/initialized"})
        self.initialized = time.perf_counter()

    def write(self, message):
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def send(self, method, params):
        self.next_id += 1
        self.write({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        return self.next_id

    def read(self):
        return json.loads(self.proc.stdout.readline())

    def request(self, method, params):
        sent = self.send(method, params)
        while True:
            reply = self.read()
            if reply.get("id") == sent:
                return reply

    def hook(self, arguments):
        reply = self.request("tools/call", {"name": "ctx_hook", "arguments": arguments})
        return "".join(b.get("text", "") for b in reply["result"]["content"])

    def burst(self, calls):
        """Writes every call at once; (seconds until the last reply, replies by id)."""
        start = time.perf_counter()
        ids = [self.send("tools/call", {"name": "ctx_hook", "arguments": a}) for a in calls]
        replies = {}
        while len(replies) < len(ids):
            reply = self.read()
            if reply.get("id") in ids:
                replies[reply["id"]] = "".join(b.get("text", "") for b in reply["result"]["content"])
        return time.perf_counter() - start, [replies[i] for i in ids]

    def close(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def golden(case, project):
    return open(os.path.join(GOLDEN, case + ".stdout")).read(), project


def burst_calls(cfg, tag):
    calls, expected = [], []
    for i in range(16):
        case = CASES[i % len(CASES)]
        calls.append(cfg.case(case, session=f"{tag}-{i}")[2])
        expected.append(open(os.path.join(GOLDEN, case + ".stdout")).read())
    return calls, expected


def check(replies, expected, cfg, wrong):
    for reply, want in zip(replies, expected):
        if reply.replace(cfg.project, "__PROJECT__") != want:
            wrong[0] += 1


def run_burst(cfg, out, tag, wrong):
    # The first single hook of a fresh server, 1 s after initialize.
    server = Server(cfg)
    time.sleep(1.0)
    start = time.perf_counter()
    server.hook(cfg.case("curl", session=f"{tag}-first")[2])
    out["first"].append(time.perf_counter() - start)
    server.close()
    for wait, key in ((1.0, "burst16_1s"), (0.0, "burst16_0s")):
        server = Server(cfg)
        if wait:
            time.sleep(wait)
        calls, expected = burst_calls(cfg, f"{tag}-{key}")
        elapsed, replies = server.burst(calls)
        out[key].append(elapsed)
        check(replies, expected, cfg, wrong)
        calls, expected = burst_calls(cfg, f"{tag}-{key}-warm")
        elapsed, replies = server.burst(calls)
        out[key + "_warm"].append(elapsed)
        check(replies, expected, cfg, wrong)
        server.close()


def make_corpus(path, megabytes):
    words = ("ingest worker retries batch backoff policy queue letter dead attempts schema "
             "migration index search vocabulary trigram snippet rank fusion proximity chunk "
             "heading fence table column row cursor page cache store journal session").split()
    os.makedirs(path, exist_ok=True)
    per_file = 48 * 1024
    count = megabytes * 1024 * 1024 // per_file
    for i in range(count):
        lines, size, n = [f"# Notes {i}\n"], 0, i
        while size < per_file:
            n = (n * 1103515245 + 12345) & 0x7FFFFFFF
            line = " ".join(words[(n >> k) % len(words)] for k in range(0, 24, 2)) + f" id{n % 9973}\n"
            lines.append(line)
            size += len(line)
        sub = os.path.join(path, f"d{i % 16}")
        os.makedirs(sub, exist_ok=True)
        with open(os.path.join(sub, f"n{i}.md"), "w") as f:
            f.write("".join(lines))
    return count


def run_index(cfg, corpus, out, round_, wrong):
    project = os.path.join(cfg.dir, f"index-{round_}")
    Config.new_project(project)
    shutil.copytree(corpus, os.path.join(project, "corpus"), copy_function=os.link)
    server = Server(cfg, project)
    want = open(os.path.join(GOLDEN, "curl.stdout")).read()
    for i in range(3):
        server.hook(cfg.case("git-status", project, session=f"idx-warm-{i}")[2])
    start = time.perf_counter()
    reply = server.hook(cfg.case("curl", project, session="idx-idle")[2])
    out["idle"].append(time.perf_counter() - start)
    if reply.replace(project, "__PROJECT__") != want:
        wrong[0] += 1
    started = time.perf_counter()
    index_id = server.send("tools/call", {"name": "ctx_index", "arguments": {"path": "corpus"}})
    time.sleep(0.1)
    sent = time.perf_counter()
    hook_id = server.send("tools/call", {"name": "ctx_hook",
                                         "arguments": cfg.case("curl", project, session="idx-busy")[2]})
    done = {}
    while len(done) < 2:
        reply = server.read()
        if reply.get("id") in (index_id, hook_id):
            done[reply["id"]] = time.perf_counter()
            if reply["id"] == hook_id:
                text = "".join(b.get("text", "") for b in reply["result"]["content"])
                if text.replace(project, "__PROJECT__") != want:
                    wrong[0] += 1
    out["during"].append(done[hook_id] - sent)
    out["index"].append(done[index_id] - started)
    server.close()
    shutil.rmtree(project, ignore_errors=True)


def served_p50(cfg):
    stats = subprocess.run([cfg.cm, "stats"], env=cfg.env, cwd=cfg.project, capture_output=True,
                           text=True).stdout
    found = {}
    for line in stats.splitlines():
        m = re.search(r"claude-code\s+(\w+) \(served\)\s+([\d,]+)\s+([\d.]+) (µs|ms)", line)
        if m:
            value = float(m.group(3)) / (1000 if m.group(4) == "µs" else 1)
            found[m.group(1)] = (value, int(m.group(2).replace(",", "")))
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("base")
    parser.add_argument("new")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steady-rounds", type=int, default=40)
    parser.add_argument("--index-mb", type=int, default=19)
    parser.add_argument("--only", default="burst,index,steady")
    args = parser.parse_args()
    rows = set(args.only.split(","))
    work = tempfile.mkdtemp(prefix="cm-warm-hooks-")
    builds = {"base": args.base, "new": args.new}
    wrong = {label: [0] for label in builds}
    order = list(builds)
    load_before = os.getloadavg()

    results = {}
    if "burst" in rows:
        cfgs = {label: Config(cm, work, f"burst-{label}") for label, cm in builds.items()}
        out = {label: {k: [] for k in ("first", "burst16_1s", "burst16_1s_warm", "burst16_0s",
                                       "burst16_0s_warm")} for label in builds}
        for round_ in range(args.rounds):
            for label in (order if round_ % 2 == 0 else order[::-1]):
                run_burst(cfgs[label], out[label], f"r{round_}", wrong[label])
        results["burst"] = out

    if "index" in rows:
        cfgs = {label: Config(cm, work, f"index-{label}") for label, cm in builds.items()}
        corpus = os.path.join(work, "corpus")
        files = make_corpus(corpus, args.index_mb)
        out = {label: {"idle": [], "during": [], "index": []} for label in builds}
        for round_ in range(args.rounds):
            for label in (order if round_ % 2 == 0 else order[::-1]):
                run_index(cfgs[label], corpus, out[label], round_, wrong[label])
        results["index"] = (out, files)

    if "steady" in rows:
        cfgs = {label: Config(cm, work, f"steady-{label}") for label, cm in builds.items()}
        servers = {label: Server(cfg) for label, cfg in cfgs.items()}
        out = {label: {"floor": [], "process": [], "served": [], "process_one": [], "served_one": []}
               for label in builds}
        cases = {label: [cfgs[label].case(c) for c in STEADY_CASES] for label in builds}
        # The same calls in one session, as one agent sends them (the goldens each have a
        # session of their own, so the rows above switch session on every call).
        one = {label: [cfgs[label].case(c, session="steady-one") for c in STEADY_CASES]
               for label in builds}
        for label in builds:
            for _, _, arguments in cases[label] + one[label]:
                servers[label].hook(arguments)
        for round_ in range(args.steady_rounds):
            for label in (order if round_ % 2 == 0 else order[::-1]):
                cfg = cfgs[label]
                start = time.perf_counter()
                subprocess.run([cfg.cm, "--version"], env=cfg.env, cwd=cfg.project, capture_output=True)
                out[label]["floor"].append(time.perf_counter() - start)
                # Each kind as a block: an agent whose tool hooks are served spawns no
                # `cm hook` between them, and a process run between two served calls
                # would leave the server's caches cold.
                for suffix, calls in (("", cases[label]), ("_one", one[label])):
                    for event, stdin, _ in calls:
                        start = time.perf_counter()
                        subprocess.run([cfg.cm, "hook", "claude-code", event], input=stdin,
                                       env=cfg.env, cwd=cfg.project, capture_output=True)
                        out[label]["process" + suffix].append(time.perf_counter() - start)
                    for _, _, arguments in calls:
                        start = time.perf_counter()
                        servers[label].hook(arguments)
                        out[label]["served" + suffix].append(time.perf_counter() - start)
        inside = {}
        for label in builds:
            servers[label].close()
            inside[label] = served_p50(cfgs[label])
        results["steady"] = (out, inside)

    load_after = os.getloadavg()
    print(f"base: `{args.base}`; new: `{args.new}`; rounds {args.rounds} "
          f"(steady {args.steady_rounds}); load average {load_before[0]:.1f} → {load_after[0]:.1f}; "
          f"replies unlike the golden: base {wrong['base'][0]}, new {wrong['new'][0]}\n")
    print("| figure | base | new | new / base |")
    print("|---|---|---|---|")

    def row(name, base, new, unit="ms", digits=1):
        ratio = new / base if base else float("nan")
        print(f"| {name} | {base:.{digits}f} {unit} | {new:.{digits}f} {unit} | {ratio:.2f} |")

    if "burst" in results:
        out = results["burst"]
        b, n = out["base"], out["new"]
        row("first served hook of a fresh server (1 s after initialize), median", ms(med(b["first"])), ms(med(n["first"])))
        for key, what in (("burst16_1s", "1 s after initialize"), ("burst16_0s", "at once after initialize")):
            row(f"16 parallel first hooks, {what}: last reply, median", ms(med(b[key])), ms(med(n[key])))
            row(f"the same 16 warm, median", ms(med(b[key + '_warm'])), ms(med(n[key + '_warm'])))
            rb = med(b[key]) / med(b[key + "_warm"])
            rn = med(n[key]) / med(n[key + "_warm"])
            print(f"| 16 first / 16 warm ({what}); target ≤ 3× | {rb:.1f}× | {rn:.1f}× | |")
    if "index" in results:
        out, files = results["index"]
        b, n = out["base"], out["new"]
        row(f"served hook idle (before the index), median", ms(med(b["idle"])), ms(med(n["idle"])), digits=2)
        row(f"served hook 0.1 s into a {args.index_mb} MB / {files}-file ctx_index, median", ms(med(b["during"])), ms(med(n["during"])))
        row(f"the ctx_index itself, median", ms(med(b["index"])), ms(med(n["index"])), digits=0)
        rb = med(b["during"]) / med(b["idle"])
        rn = med(n["during"]) / med(n["idle"])
        print(f"| hook during index / idle; target ≤ 5× | {rb:.1f}× | {rn:.1f}× | |")
        print(f"| hook during index, each round (ms) | {', '.join(f'{ms(x):.0f}' for x in b['during'])} | "
              f"{', '.join(f'{ms(x):.1f}' for x in n['during'])} | |")
    if "steady" in results:
        out, inside = results["steady"]
        b, n = out["base"], out["new"]
        row("`cm --version` p50 (floor)", ms(med(b["floor"])), ms(med(n["floor"])), digits=2)
        row("`cm hook` process p50 (7 cases)", ms(med(b["process"])), ms(med(n["process"])), digits=2)
        print(f"| `cm hook` / `cm --version`; target ≤ 2× | {med(b['process']) / med(b['floor']):.2f}× | "
              f"{med(n['process']) / med(n['floor']):.2f}× | |")
        row("served round trip p50; target ≤ 0.5 ms", ms(med(b["served"])), ms(med(n["served"])), digits=3)
        row("`cm hook` process p50, one session", ms(med(b["process_one"])), ms(med(n["process_one"])), digits=2)
        print(f"| `cm hook` / `cm --version`, one session | {med(b['process_one']) / med(b['floor']):.2f}× | "
              f"{med(n['process_one']) / med(n['floor']):.2f}× | |")
        row("served round trip p50, one session", ms(med(b["served_one"])), ms(med(n["served_one"])), digits=3)
        for event in ("pretooluse", "posttooluse"):
            bi = inside["base"].get(event, (float("nan"), 0))
            ni = inside["new"].get(event, (float("nan"), 0))
            row(f"in-server {event} p50 (`cm stats`, {bi[1]} / {ni[1]} runs); target ≤ 0.3 ms", bi[0], ni[0], digits=3)
    shutil.rmtree(work, ignore_errors=True)
    return 0 if wrong["new"][0] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
