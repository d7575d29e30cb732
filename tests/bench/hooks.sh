#!/usr/bin/env bash
# Whole-process latency of `cm hook <platform> <pre-tool-use event>` with hyperfine, `.cwasm` cache
# warm and cold, with a live `cm serve` (so redirects are issued). Prints markdown tables.
#   usage: tests/bench/hooks.sh [claude-code|gemini-cli|codex|cursor]
#   (needs hyperfine: apt-get install hyperfine)
set -euo pipefail
platform=${1:-claude-code}
repo=$(cd "$(dirname "$0")/../.." && pwd)
cargo build --quiet --release -p cm --manifest-path "$repo/Cargo.toml"
CM="$repo/target/release/cm"

work=$(mktemp -d)
cleanup() { [ -n "${SERVER_PID:-}" ] && kill "$SERVER_PID" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
export HOME="$work/home" CONTEXT_MODE_DIR="$work/data"
project="$work/project"
mkdir -p "$HOME" "$CONTEXT_MODE_DIR" "$project/.claude"
(yes '2026-11-30T04:00:00Z INFO request served in 12 ms path=/api/items status=200' || true) | head -c 51200 > "$project/big.txt"
echo '{"permissions":{"deny":["Bash(sudo *)"]}}' > "$project/.claude/settings.json"

# The server works on the same project as the hooks, as an agent session would.
coproc SERVER { CONTEXT_MODE_PROJECT_DIR="$project" "$CM" serve; }
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}' >&"${SERVER[1]}"
read -r _ <&"${SERVER[0]}"

# Each platform's own pre-tool-use event and its golden payloads (same routing cases
# where the host has the tool: Cursor and Codex have no page-fetch tool in their hooks).
case "$platform" in
  claude-code) event=pretooluse; cases=(curl git-status read-large webfetch task-launch) ;;
  gemini-cli) event=beforetool; cases=(curl git-status read-large webfetch grep) ;;
  codex) event=pretooluse; cases=(curl git-status read-large gradlew grep) ;;
  cursor) event=pretooluse; cases=(curl git-status read-large gradlew grep) ;;
  *) echo "no bench cases for platform $platform" >&2; exit 2 ;;
esac
golden="$repo/tests/golden/$platform"
commands=()
for case in "${cases[@]}"; do
  sed "s#__PROJECT__#$project#g" "$golden/$case.stdin.json" > "$work/$case.json"
  commands+=(-n "$case" "$CM hook $platform $event < $work/$case.json")
done

table() {
  python3 - "$1" <<'PY'
import json, statistics, sys
results = json.load(open(sys.argv[1]))["results"]
print("| payload | p50 ms | p90 ms | mean ms | runs |")
print("|---|---|---|---|---|")
for r in results:
    t = sorted(x * 1000 for x in r["times"])
    p90 = t[min(len(t) - 1, int(len(t) * 0.9))]
    print(f"| {r['command']} | {statistics.median(t):.2f} | {p90:.2f} | {statistics.mean(t):.2f} | {len(t)} |")
PY
}

echo "### $platform, cache warm"
hyperfine --style none --warmup 20 --runs 300 --export-json "$work/warm.json" "${commands[@]}" > /dev/null
table "$work/warm.json"
echo
echo "### $platform, cache cold (cwasm cache deleted before every run)"
hyperfine --style none --warmup 2 --runs 20 --prepare "rm -rf $CONTEXT_MODE_DIR/cache" \
  --export-json "$work/cold.json" "${commands[@]}" > /dev/null
table "$work/cold.json"
