#!/usr/bin/env python3
"""Every agent host's hook, whole process, and `cm setup` for all hosts together (issue 16).

    usage: tests/bench/hosts.py CM [--rounds N] [--hosts a,b,...]

One throw-away HOME, data root and project (`Bash(sudo *)` denied, a 50 KB big.txt) with a
live `cm serve`, as an agent session has. Hooks: each host's golden pre-tool-use payloads
(the cases below that the host has), `.cwasm` cache warm. The rounds are interleaved: each
round runs `cm --version` (the process floor) and then every host's cases once, the host
order rotating per round, so the machine's drift hits all alike. Setup: `cm setup --agents
<every host> --project P --yes` in a fresh HOME per run, cold runs (no `.cwasm` cache)
alternating with warm ones. `--skip-hooks` measures setup alone. Prints markdown tables.
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
GOLDEN = os.path.join(REPO, "tests", "golden")
CASES = ["curl", "git-status", "read-large", "webfetch", "gradlew", "grep", "sudo-chain"]
PRE_TOOL_EVENTS = {"pretooluse", "beforetool"}


def event_of(host, case):
    sidecar = os.path.join(GOLDEN, host, case + ".event")
    if os.path.exists(sidecar):
        return open(sidecar).read().strip().lower()
    payload = json.load(open(os.path.join(GOLDEN, host, case + ".stdin.json")))
    return str(payload.get("hook_event_name", "")).lower()


def host_cases(host):
    cases = []
    for case in CASES:
        if not os.path.exists(os.path.join(GOLDEN, host, case + ".stdin.json")):
            continue
        event = event_of(host, case)
        if event in PRE_TOOL_EVENTS:
            cases.append((case, event))
    return cases


def timed(argv, env, stdin=None):
    start = time.perf_counter()
    subprocess.run(argv, env=env, stdin=stdin, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)
    return (time.perf_counter() - start) * 1000


def p(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * q))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("cm")
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--hosts")
    parser.add_argument("--setup-runs", type=int, default=8)
    parser.add_argument("--cold-runs", type=int, default=5)
    parser.add_argument("--skip-hooks", action="store_true")
    args = parser.parse_args()
    cm = os.path.abspath(args.cm)
    hosts = args.hosts.split(",") if args.hosts else sorted(
        d for d in os.listdir(GOLDEN) if os.path.isdir(os.path.join(GOLDEN, d)))

    work = tempfile.mkdtemp(prefix="cm-bench-hosts-")
    try:
        home, data, project = (os.path.join(work, d) for d in ("home", "data", "project"))
        os.makedirs(os.path.join(project, ".claude"))
        os.makedirs(home)
        line = "2026-11-30T04:00:00Z INFO request served in 12 ms path=/api/items status=200\n"
        with open(os.path.join(project, "big.txt"), "w") as f:
            f.write(line * (50 * 1024 // len(line) + 1))
        with open(os.path.join(project, ".claude", "settings.json"), "w") as f:
            json.dump({"permissions": {"deny": ["Bash(sudo *)"]}}, f)
        env = dict(os.environ, HOME=home, CONTEXT_MODE_DIR=data,
                   CONTEXT_MODE_PROJECT_DIR=project)
        env.pop("RUST_BACKTRACE", None)

        if not args.skip_hooks:
            server = subprocess.Popen([cm, "serve"], env=env, stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                    "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                               "clientInfo": {"name": "bench", "version": "1"}}}
            server.stdin.write((json.dumps(init) + "\n").encode())
            server.stdin.flush()
            server.stdout.readline()

            payloads = {}
            for host in hosts:
                for case, event in host_cases(host):
                    text = open(os.path.join(GOLDEN, host, case + ".stdin.json")).read()
                    path = os.path.join(work, f"{host}-{case}.json")
                    with open(path, "w") as f:
                        f.write(text.replace("__PROJECT__", project))
                    payloads.setdefault(host, []).append((case, event, path))

            # Warm-up: compile every adapter into the cache, settle the page cache.
            for host, cases in payloads.items():
                for case, event, path in cases:
                    for _ in range(3):
                        with open(path, "rb") as stdin:
                            timed([cm, "hook", host, event], env, stdin)

            floor, times = [], {host: [] for host in payloads}
            order = list(payloads)
            for round_index in range(args.rounds):
                floor.append(timed([cm, "--version"], env))
                rotated = order[round_index % len(order):] + order[:round_index % len(order)]
                for host in rotated:
                    for case, event, path in payloads[host]:
                        with open(path, "rb") as stdin:
                            times[host].append(timed([cm, "hook", host, event], env, stdin))
            server.stdin.close()
            server.wait(timeout=10)

            print(f"### Hooks, whole process, cache warm ({args.rounds} interleaved rounds)\n")
            print("| host | cases | p50 ms | p90 ms | p50 − floor ms | runs |")
            print("|---|---|---|---|---|---|")
            floor_p50 = statistics.median(floor)
            print(f"| `cm --version` (floor) | – | {floor_p50:.2f} | {p(floor, 0.9):.2f} | 0 | {len(floor)} |")
            for host in order:
                t = times[host]
                names = ", ".join(case for case, _, _ in payloads[host])
                print(f"| {host} | {names} | {statistics.median(t):.2f} | {p(t, 0.9):.2f} | "
                      f"{statistics.median(t) - floor_p50:.2f} | {len(t)} |")

        agents = ",".join(hosts)
        cold, warm = [], []
        # Cold and warm runs alternate, so drift hits both; a cold run starts without a
        # `.cwasm` cache, as the first `cm setup` after installing `cm` does.
        for run in range(max(args.setup_runs, args.cold_runs)):
            for is_cold in (True, False):
                if (is_cold and run >= args.cold_runs) or (not is_cold and run >= args.setup_runs):
                    continue
                tag = f"{run}-{'cold' if is_cold else 'warm'}"
                run_home = os.path.join(work, f"setup-home-{tag}")
                run_project = os.path.join(work, f"setup-project-{tag}")
                os.makedirs(run_home)
                os.makedirs(run_project)
                run_env = dict(env, HOME=run_home)
                if is_cold:
                    shutil.rmtree(os.path.join(data, "cache"), ignore_errors=True)
                took = timed([cm, "setup", "--agents", agents, "--project", run_project,
                              "--yes"], run_env)
                (cold if is_cold else warm).append(took)
        print(f"\n### `cm setup --agents <all {len(hosts)}> --project P --yes`, fresh HOME per run\n")
        print("| cache | p50 ms | max ms | runs |")
        print("|---|---|---|---|")
        for label, values in (("cold (no `.cwasm` cache)", cold), ("warm", warm)):
            if values:
                print(f"| {label} | {statistics.median(values):.0f} | {max(values):.0f} | {len(values)} |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
