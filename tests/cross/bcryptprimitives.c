/* bcryptprimitives.dll for Wine 8, which lacks ProcessPrng (Rust's std imports it from
 * this DLL since 1.78 for HashMap keys and getrandom). Built by tests/cross/install.sh
 * with x86_64-w64-mingw32-gcc and copied beside each .exe by tests/cross/wine-run.sh.
 * ProcessPrng fills the buffer from RtlGenRandom (advapi32!SystemFunction036), which
 * Wine implements over the host's random source; like the real one it always succeeds. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
    while (len > 0) {
        ULONG chunk = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}
