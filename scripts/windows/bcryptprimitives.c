/*
 * A stand-in for Windows' bcryptprimitives.dll, for Wine 8.0 only (Debian
 * 12's Wine), which lacks that DLL. Rust's standard library (1.78 and later)
 * takes its random bytes from ProcessPrng there, so without it no Rust
 * program starts under that Wine ("Library bcryptprimitives.dll ... not
 * found"). This one fills the buffer from RtlGenRandom (advapi32's
 * SystemFunction036), which Wine implements with the system's random
 * source. Windows 10 and 11 have the real DLL: this file is never shipped;
 * scripts/test-windows.sh builds it with mingw-w64 and puts it in the Wine
 * prefix it creates.
 */
#include <windows.h>
#define SystemFunction036 NTAPI SystemFunction036
#include <ntsecapi.h>
#undef SystemFunction036

/* RtlGenRandom takes a ULONG length: larger requests go in pieces. */
#define MAX_CHUNK 0x10000000UL

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
  while (len > 0) {
    ULONG chunk = len > MAX_CHUNK ? MAX_CHUNK : (ULONG)len;
    if (!RtlGenRandom(data, chunk)) return FALSE;
    data += chunk;
    len -= chunk;
  }
  return TRUE;
}
