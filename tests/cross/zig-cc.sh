#!/usr/bin/env bash
# C compiler for `cargo check --target *-apple-darwin` (build scripts of ring, the bundled
# SQLite, zstd): zig cc, which needs no Apple SDK. .cargo/config.toml points
# CC_<target> here; cargo-zigbuild sets its own for `cargo zigbuild`. cc-rs passes Apple
# clang's target flags, which zig does not take: they are replaced by zig's own -target.
set -euo pipefail
case "${TARGET:-${CARGO_CFG_TARGET_ARCH:-}}" in
    aarch64-apple-darwin | aarch64) zt=aarch64-macos ;;
    x86_64-apple-darwin | x86_64) zt=x86_64-macos ;;
    *) echo "zig-cc.sh: unknown TARGET '${TARGET:-}'" >&2; exit 2 ;;
esac
args=()
skip=0
for a in "$@"; do
    if ((skip)); then skip=0; continue; fi
    case "$a" in
        -arch | -target | -isysroot) skip=1 ;;
        --target=* | -mmacosx-version-min=* | -mmacos-version-min=*) ;;
        *) args+=("$a") ;;
    esac
done
zig="$(command -v zig || true)"
if [ -z "$zig" ]; then
    . "$(dirname "$0")/env.sh"
    zig="$CM_CROSS_CACHE/bin/zig"
fi
exec "$zig" cc -target "$zt" "${args[@]}"
