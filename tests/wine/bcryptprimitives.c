/* A stand-in for bcryptprimitives.dll, for Wine 8.0 only (Debian 12's), which lacks it:
 * Rust's std imports ProcessPrng from it since 1.78, so no Rust program starts there.
 * Wine 8.13 and every Windows 10/11 have the real DLL: this is never shipped; the test
 * harness (scripts/test-windows) puts it into its own Wine prefix. */
#include <windows.h>
#include <ntsecapi.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    while (length > 0) {
        ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!RtlGenRandom(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
