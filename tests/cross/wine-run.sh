#!/usr/bin/env bash
# Cargo's runner for x86_64-pc-windows-gnu (.cargo/config.toml): runs a Windows exe under
# Wine with the prefix and shim from tests/cross/install.sh; arguments, stdin/stdout/stderr
# and the exit code pass through. The bcryptprimitives.dll shim is copied beside the exe
# (Windows loads DLLs from the exe's folder first): Wine 8 lacks ProcessPrng.
set -uo pipefail
. "$(dirname "$0")/env.sh"
exe="${1:?usage: wine-run.sh program.exe [args...]}"
shift
shim="$CM_CROSS_CACHE/shim/bcryptprimitives.dll"
if [ ! -f "$shim" ] || [ ! -f "$WINEPREFIX/system.reg" ]; then
    echo "wine-run: no Wine prefix or shim in $CM_CROSS_CACHE: run tests/cross/install.sh first" >&2
    exit 127
fi
dir="$(dirname "$exe")"
if [ ! -f "$dir/bcryptprimitives.dll" ]; then
    # copy then rename: parallel test binaries in one folder never see half a DLL
    cp "$shim" "$dir/bcryptprimitives.dll.$$" && mv -f "$dir/bcryptprimitives.dll.$$" "$dir/bcryptprimitives.dll"
fi
# Wine's server exits 3 s after its last client; a Wine process that starts in that moment
# loses its connection ("wine client error:0: recvmsg: Connection reset by peer") and dies,
# which CI saw between test processes. One started here stays 60 s after its last client;
# when a server is already running this exits at once (status 2) and changes nothing.
"$CM_WINESERVER" -p60 >/dev/null 2>&1 || true
exec "$CM_WINE" "$exe" "$@"
