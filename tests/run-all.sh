#!/usr/bin/env bash
# Every test of the project, in one command (README "Run every test"; .ci/run execs it).
# Runs each step even when an earlier one failed, prints `== step: … ==` and the wall
# time of each, a summary table at the end, and exits non-zero if any step failed.
# Steps: the cross toolchains (tests/cross/install.sh); the Linux workspace tests; the
# plugins' own tests; cm built for Windows and arm64 macOS, type-checked for x64 macOS;
# the host's unit tests under Wine (minus tests/cross/wine-skip.txt, each with its
# reason); the Wine smoke test (`--test wine`, tests/wine/). ADR 34.
set -uo pipefail
cd "$(dirname "$0")/.."
. tests/cross/env.sh

names=()
results=()
times=()
cpus=()
failed=0
total_start=$SECONDS

step() { # step NAME COMMAND...
    local name="$1"
    shift
    echo
    echo "== step: $name =="
    echo "\$ $*"
    local start=$SECONDS rc report cpu
    report="$(mktemp)"
    # bash's `time` also counts the CPU of every child (rustc, the tests): CPU time says
    # what a step costs whatever else the machine is doing; wall time is what CI waits.
    { TIMEFORMAT='%U %S' && time "$@" 2>&4; } 4>&2 2>"$report"
    rc=$?
    cpu="$(awk '{printf "%d", $1 + $2}' "$report" 2>/dev/null)"
    rm -f "$report"
    local took=$((SECONDS - start))
    names+=("$name")
    times+=("$took")
    cpus+=("${cpu:-0}")
    if [ "$rc" = 0 ]; then
        results+=("ok")
    else
        results+=("FAILED ($rc)")
        failed=1
    fi
    printf '== step: %s: %s in %dm%02ds (CPU %dm%02ds) ==\n' "$name" "${results[-1]}" \
        $((took / 60)) $((took % 60)) $((cpus[-1] / 60)) $((cpus[-1] % 60))
}

# The --skip filters of the Wine unit-test run: tests/cross/wine-skip.txt, one filter a
# line with its `# reason`. Printed, so nothing is skipped without being seen.
wine_skips=()
while IFS= read -r line; do
    filter="${line%%#*}"
    filter="$(echo "$filter" | xargs)"
    [ -n "$filter" ] && wine_skips+=(--skip "$filter")
done <tests/cross/wine-skip.txt

host_tests_under_wine() {
    echo "skipped under Wine: $((${#wine_skips[@]} / 2)) filters (tests/cross/wine-skip.txt):"
    grep -v '^[[:space:]]*\(#\|$\)' tests/cross/wine-skip.txt | sed 's/^/  /'
    cargo test -p cm --lib --target x86_64-pc-windows-gnu -- "${wine_skips[@]}"
}

step "cross toolchains" tests/cross/install.sh
step "linux: cargo test --workspace" cargo test --workspace --no-fail-fast
step "plugins: adapters-wasm tests" cargo test --manifest-path adapters-wasm/Cargo.toml --no-fail-fast
step "build: windows x86_64 (mingw)" cargo build -p cm --target x86_64-pc-windows-gnu
step "build: macos aarch64 (zig)" cargo zigbuild -p cm --target aarch64-apple-darwin
step "check: macos x86_64" cargo check -p cm --target x86_64-apple-darwin
step "wine: host unit tests" host_tests_under_wine
step "wine: smoke (tests/wine)" cargo test -p cm --test wine

echo
echo "== summary =="
printf '%-34s %-12s %8s %8s\n' step result wall CPU
cpu_total=0
for i in "${!names[@]}"; do
    printf '%-34s %-12s %5dm%02ds %5dm%02ds\n' "${names[$i]}" "${results[$i]}" \
        $((times[i] / 60)) $((times[i] % 60)) $((cpus[i] / 60)) $((cpus[i] % 60))
    cpu_total=$((cpu_total + cpus[i]))
done
took=$((SECONDS - total_start))
printf '%-34s %-12s %5dm%02ds %5dm%02ds\n' "total" "$([ $failed = 0 ] && echo ok || echo FAILED)" \
    $((took / 60)) $((took % 60)) $((cpu_total / 60)) $((cpu_total % 60))
exit $failed
