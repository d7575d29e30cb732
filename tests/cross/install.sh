#!/usr/bin/env bash
# Installs what the cross builds and the Wine tests need (ADR 34): the rustup targets,
# mingw-w64 and Wine from Debian, zig (PyPI `ziglang`) and cargo-zigbuild (crates.io),
# the bcryptprimitives.dll shim Wine 8 lacks, and a Wine prefix initialised once.
# Idempotent and quiet: prints one line per thing it installs, nothing when all is there.
# Downloads and builds are cached outside the clone, in $CACHE (below), so a second run on
# the same machine costs about a second. tests/cross/env.sh gives the same paths to the
# scripts that use them.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=env.sh
. "$here/env.sh"

say() { echo "cross/install: $*"; }
quiet() { # run a command, show its output only when it fails
    local log
    log="$(mktemp)"
    if ! "$@" >"$log" 2>&1; then
        cat "$log" >&2
        rm -f "$log"
        echo "cross/install: failed: $*" >&2
        return 1
    fi
    rm -f "$log"
}
mkdir -p "$CM_CROSS_CACHE" "$CM_CROSS_CACHE/bin"

# 1. Rust targets: wasm32-wasip2 for the built-in plugins, the three cross targets.
installed="$(rustup target list --installed)"
for t in wasm32-wasip2 x86_64-pc-windows-gnu aarch64-apple-darwin x86_64-apple-darwin; do
    if ! grep -qx "$t" <<<"$installed"; then
        say "rustup target $t"
        quiet rustup target add "$t"
    fi
done

# 2. Debian packages: the mingw-w64 C compiler and linker, Wine (64-bit only; with its
#    recommended libraries, gnutls among them, as on the machine where it was proven).
missing=()
for p in gcc-mingw-w64-x86-64 wine64 wine; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
    say "apt ${missing[*]}"
    if [ "$(id -u)" != 0 ]; then
        echo "cross/install: apt packages ${missing[*]} are missing and this is not root" >&2
        exit 1
    fi
    quiet apt-get update -qq
    quiet env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi

# 3. zig from PyPI, in a venv of its own; `zig` on PATH is a wrapper around it
#    (cargo-zigbuild and the macOS C compiler wrappers call it).
if ! "$CM_CROSS_CACHE/zig-venv/bin/python" -c "import ziglang" 2>/dev/null; then
    say "ziglang $CM_ZIG_VERSION (PyPI)"
    rm -rf "$CM_CROSS_CACHE/zig-venv"
    quiet python3 -m venv "$CM_CROSS_CACHE/zig-venv"
    quiet "$CM_CROSS_CACHE/zig-venv/bin/pip" install --disable-pip-version-check -q "ziglang==$CM_ZIG_VERSION"
fi
zig_wrapper="$CM_CROSS_CACHE/bin/zig"
if [ ! -x "$zig_wrapper" ]; then
    printf '#!/bin/sh\nexec "%s" -m ziglang "$@"\n' "$CM_CROSS_CACHE/zig-venv/bin/python" >"$zig_wrapper"
    chmod +x "$zig_wrapper"
fi

# 4. cargo-zigbuild from crates.io (links the macOS targets with zig, no Apple SDK).
if ! "$CM_CROSS_CACHE/bin/cargo-zigbuild" --version 2>/dev/null | grep -q "$CM_ZIGBUILD_VERSION"; then
    say "cargo-zigbuild $CM_ZIGBUILD_VERSION (crates.io)"
    quiet cargo install --locked --quiet --root "$CM_CROSS_CACHE" --version "$CM_ZIGBUILD_VERSION" cargo-zigbuild
fi

# 5. The bcryptprimitives.dll shim: Wine 8 has no ProcessPrng, which every Rust exe imports.
shim="$CM_CROSS_CACHE/shim/bcryptprimitives.dll"
if [ ! -f "$shim" ] || [ "$here/bcryptprimitives.c" -nt "$shim" ] || [ "$here/bcryptprimitives.def" -nt "$shim" ]; then
    say "bcryptprimitives.dll shim"
    mkdir -p "$(dirname "$shim")"
    quiet x86_64-w64-mingw32-gcc -O2 -shared -s -o "$shim.tmp" \
        "$here/bcryptprimitives.c" "$here/bcryptprimitives.def" -ladvapi32
    mv "$shim.tmp" "$shim"
fi

# 6. One Wine prefix, initialised once, so a test does not pay wineboot (~10-20 s).
if [ ! -f "$WINEPREFIX/system.reg" ]; then
    say "wine prefix $WINEPREFIX"
    mkdir -p "$WINEPREFIX"
    quiet "$CM_WINE" wineboot -i
    quiet "$CM_WINESERVER" -w
fi

# 7. Wine 8's powershell.exe is a stub that runs nothing and exits 0. `cm` picks the
#    Windows `shell` as Git Bash, else PowerShell, else cmd: without this stub it finds
#    cmd, which Wine implements, instead of silently running nothing (ADR 34).
stub="$WINEPREFIX/drive_c/windows/system32/WindowsPowerShell/v1.0/powershell.exe"
if [ -e "$stub" ]; then
    say "wine prefix: removing the powershell.exe stub"
    rm -f "$stub"
fi
