# Sourced by tests/cross/*.sh and tests/run-all.sh: where the cross toolchains live.
# Everything is cached outside the clone so a second run on the same machine is instant.
CM_CROSS_CACHE="${CONTEXT_MODE_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/context-mode-ci}"
CM_ZIG_VERSION=0.15.2
CM_ZIGBUILD_VERSION=0.24.1
export CM_CROSS_CACHE
export PATH="$CM_CROSS_CACHE/bin:$PATH"
# zig's own cache (libc stubs and compiler-rt it builds per target on first use, ~1 min).
export ZIG_GLOBAL_CACHE_DIR="${ZIG_GLOBAL_CACHE_DIR:-$CM_CROSS_CACHE/zig-cache}"
export WINEPREFIX="$CM_CROSS_CACHE/wineprefix"
export WINEDEBUG=-all
# No "install Mono/Gecko?" dialogs, no desktop integration.
export WINEDLLOVERRIDES="mscoree,mshtml=;winemenubuilder.exe=d"
# Debian 12: package wine64 ships /usr/lib/wine/wine64; package wine adds /usr/bin/wine,
# which warns on stderr that wine32 is missing. Call the 64-bit loader directly.
if [ -x /usr/lib/wine/wine64 ]; then
    CM_WINE=/usr/lib/wine/wine64
elif command -v wine64 >/dev/null 2>&1; then
    CM_WINE="$(command -v wine64)"
else
    CM_WINE=wine
fi
if [ -x /usr/lib/wine/wineserver64 ]; then
    CM_WINESERVER=/usr/lib/wine/wineserver64
else
    CM_WINESERVER=wineserver
fi
export CM_WINE CM_WINESERVER
