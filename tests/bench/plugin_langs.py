#!/usr/bin/env python3
"""The cost of a plugin by the language it was built with (issue 15): whole-process hook
latency with each plugin installed against none, in one interleaved run; the first (cold)
hook after `cm plugin add`; and the time `cm plugin add` takes.

    usage: tests/bench/plugin_langs.py CM LABEL=PLUGIN.wasm [LABEL=PLUGIN.wasm ...] [--rounds N]

Every configuration ("none" and one per plugin) gets its own throw-away HOME, data root and
project with `Bash(sudo *)` denied. Per configuration: `cm plugin add` is timed (it compiles
the component once), then one cold hook (a fresh process whose built-ins are not compiled
yet — the same state for "none"), then warm rounds: each round runs the five Claude Code
golden payloads once per configuration, the configuration order rotating per round, so the
machine's drift hits all alike. Peak RSS of a warm hook comes from getrusage of the child.
Prints markdown tables.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
HOOK_CASES = ["curl", "git-status", "read-large", "webfetch", "task-launch"]


class Config:
    def __init__(self, label, cm, plugin, work):
        self.label = label
        self.cm = os.path.abspath(cm)
        self.plugin = plugin
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
        golden = os.path.join(REPO, "tests", "golden", "claude-code")
        self.payloads = {}
        for case in HOOK_CASES:
            with open(os.path.join(golden, case + ".stdin.json")) as f:
                self.payloads[case] = f.read().replace("__PROJECT__", self.project).encode()
        self.times = {case: [] for case in HOOK_CASES}
        self.add_s = None
        self.cold_ms = None
        self.rss_kb = []

    def install(self):
        if self.plugin is None:
            return
        started = time.perf_counter()
        subprocess.run([self.cm, "plugin", "add", self.plugin], env=self.env, cwd=self.project,
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.add_s = time.perf_counter() - started

    def hook(self, case):
        """Wall time of one whole hook process, in ms; records its peak RSS."""
        started = time.perf_counter()
        child = subprocess.Popen([self.cm, "hook", "claude-code", "pretooluse"], env=self.env,
                                 cwd=self.project, stdin=subprocess.PIPE,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        child.stdin.write(self.payloads[case])
        child.stdin.close()
        _, status, usage = os.wait4(child.pid, 0)
        elapsed = (time.perf_counter() - started) * 1000
        child.returncode = os.waitstatus_to_exitcode(status)
        self.rss_kb.append(usage.ru_maxrss)
        return elapsed


def p50(values):
    return statistics.median(values) if values else float("nan")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("cm")
    parser.add_argument("plugins", nargs="+", help="LABEL=PLUGIN.wasm")
    parser.add_argument("--rounds", type=int, default=100)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="cm-plugin-langs-")
    try:
        configs = [Config("none", args.cm, None, work)]
        for spec in args.plugins:
            label, path = spec.split("=", 1)
            configs.append(Config(label, args.cm, os.path.abspath(path), work))
        for config in configs:
            config.install()
            config.cold_ms = config.hook("git-status")
        floor = []
        for round_no in range(args.rounds):
            order = configs[round_no % len(configs):] + configs[:round_no % len(configs)]
            for case in HOOK_CASES:
                for config in order:
                    config.times[case].append(config.hook(case))
            started = time.perf_counter()
            subprocess.run([args.cm, "--version"], stdout=subprocess.DEVNULL)
            floor.append((time.perf_counter() - started) * 1000)

        none = configs[0]
        print(f"rounds: {args.rounds}; floor (`cm --version`) p50 {p50(floor):.2f} ms\n")
        print("| case | " + " | ".join(c.label for c in configs) + " |")
        print("|---|" + "---|" * len(configs))
        for case in HOOK_CASES:
            cells = []
            for c in configs:
                value = p50(c.times[case])
                delta = value - p50(none.times[case])
                cells.append(f"{value:.2f}" + ("" if c is none else f" ({delta:+.2f})"))
            print(f"| {case} p50 ms | " + " | ".join(cells) + " |")
        all_p50 = {c.label: p50([t for ts in c.times.values() for t in ts]) for c in configs}
        print("| all p50 ms | " + " | ".join(
            f"{all_p50[c.label]:.2f}" + ("" if c is none else f" ({all_p50[c.label] - all_p50['none']:+.2f})")
            for c in configs) + " |")
        print("| cold first hook ms | " + " | ".join(
            f"{c.cold_ms:.0f}" + ("" if c is none else f" ({c.cold_ms - none.cold_ms:+.0f})")
            for c in configs) + " |")
        print("| `cm plugin add` s | " + " | ".join(
            "—" if c.add_s is None else f"{c.add_s:.2f}" for c in configs) + " |")
        print("| plugin file | " + " | ".join(
            "—" if c.plugin is None else f"{os.path.getsize(c.plugin) / 1048576:.1f} MB"
            for c in configs) + " |")
        print("| warm hook peak RSS MB (p50) | " + " | ".join(
            f"{p50(c.rss_kb[1:]) / 1024:.1f}" for c in configs) + " |")
        sizes = []
        for c in configs:
            cache = os.path.join(c.data, "cache", "cwasm")
            total = sum(os.path.getsize(os.path.join(cache, n)) for n in os.listdir(cache)
                        if n.endswith(".cwasm")) if os.path.isdir(cache) else 0
            sizes.append(f"{total / 1048576:.1f} MB")
        print("| .cwasm cache (built-ins + plugin) | " + " | ".join(sizes) + " |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
