#!/usr/bin/env bash
# The OpenClaw shim's per-event cost (tests/bench/openclaw_shim.mjs): a release `cm`, a
# throw-away HOME set up with `cm setup --agents openclaw`, a live `cm serve` (so redirects
# are issued), then the shim driven from Node. Prints a markdown table.
#   usage: [CM=/path/to/cm] tests/bench/openclaw_shim.sh [runs]   (needs node on PATH; any Node 20+ runs the shim)
set -euo pipefail
runs=${1:-200}
repo=$(cd "$(dirname "$0")/../.." && pwd)
# CM=/path/to/cm uses that build instead of building target/release/cm.
if [ -z "${CM:-}" ]; then
    cargo build --quiet --release -p cm --manifest-path "$repo/Cargo.toml"
    CM="$repo/target/release/cm"
fi

work=$(mktemp -d)
cleanup() { [ -n "${SERVER_PID:-}" ] && kill "$SERVER_PID" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
export HOME="$work/home" CONTEXT_MODE_DIR="$work/data"
project="$work/project"
mkdir -p "$HOME/.openclaw" "$CONTEXT_MODE_DIR" "$project"
(cd "$project" && "$CM" setup --agents openclaw --yes > /dev/null)

coproc SERVER { CONTEXT_MODE_PROJECT_DIR="$project" "$CM" serve; }
SERVER_PID=$SERVER_PID
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"openclaw-bundle-mcp","version":"1"}}}' >&"${SERVER[1]}"
read -r _ <&"${SERVER[0]}"

cd "$project"
# The shim copies the bench makes go with the rest.
export TMPDIR="$work"
node "$repo/tests/bench/openclaw_shim.mjs" "$HOME/.openclaw/extensions/context-mode/index.js" "$CM" "$project" "$runs"
