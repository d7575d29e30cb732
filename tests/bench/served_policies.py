#!/usr/bin/env python3
"""What an installed policy of each language adds to a served hook (issue 30): the round
trip of `ctx_hook` PreToolUse calls through a long-lived `cm serve`, with no policy
installed against each given one, interleaved in one run.

    usage: tests/bench/served_policies.py CM LABEL=POLICY.wasm [LABEL=POLICY.wasm ...]
                                          [--rounds N]

POLICY.wasm is a built policy component, e.g. the JS and Python ones the authoring tests
build from `cm plugin new` with the real toolchains (`cargo test -p cm --test authoring`
leaves them in target/tmp/authoring-policy-js-*/ and authoring-policy-py-*/).

Every configuration ("none" and one per policy) gets its own throw-away HOME, data root
and project (`warm_hooks.Config`: a stand-in `claude` 2.1.332, `cm setup`), then
`cm plugin add`, then one live server, warmed by one call of each case. Each round sends
the PreToolUse goldens, one session as an agent sends them, once per configuration, the
order rotating per round. Also the in-server p50 from the server's own timings.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

from warm_hooks import Config, Server, served_p50

CASES = ["curl", "git-status", "read-large", "webfetch", "grep", "sudo-chain"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("cm")
    parser.add_argument("policies", nargs="+", help="LABEL=POLICY.wasm")
    parser.add_argument("--rounds", type=int, default=60)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="cm-served-policies-")
    plugins = {"none": None}
    for spec in args.policies:
        label, _, path = spec.partition("=")
        plugins[label] = os.path.abspath(path)

    cfgs, servers, cases = {}, {}, {}
    for label, plugin in plugins.items():
        cfg = Config(args.cm, work, label)
        if plugin:
            added = subprocess.run([cfg.cm, "plugin", "add", plugin], env=cfg.env, cwd=cfg.project,
                                   capture_output=True, text=True)
            if added.returncode != 0:
                sys.exit(f"{label}: cm plugin add failed: {added.stderr.strip()}")
        cfgs[label] = cfg
        servers[label] = Server(cfg)
        cases[label] = [cfg.case(c, session=f"served-policies-{label}")[2] for c in CASES]
        for arguments in cases[label]:
            servers[label].hook(arguments)

    labels = list(plugins)
    samples = {label: [] for label in labels}
    load_before = os.getloadavg()
    for round_ in range(args.rounds):
        shift = round_ % len(labels)
        for label in labels[shift:] + labels[:shift]:
            for arguments in cases[label]:
                start = time.perf_counter()
                servers[label].hook(arguments)
                samples[label].append(time.perf_counter() - start)
    load_after = os.getloadavg()
    inside = {}
    for label in labels:
        servers[label].close()
        inside[label] = served_p50(cfgs[label]).get("pretooluse", (float("nan"), 0))

    none = statistics.median(samples["none"]) * 1000
    print(f"`{args.cm}`; {args.rounds} rounds × {len(CASES)} PreToolUse goldens; load average "
          f"{load_before[0]:.1f} → {load_after[0]:.1f}\n")
    print("| policy | round trip p50 ms | added p50 ms | in-server p50 ms (runs) |")
    print("|---|---|---|---|")
    for label in labels:
        p50 = statistics.median(samples[label]) * 1000
        added = "" if label == "none" else f"{p50 - none:+.2f}"
        value, runs = inside[label]
        print(f"| {label} | {p50:.3f} | {added} | {value:.3f} ({runs}) |")


if __name__ == "__main__":
    main()
