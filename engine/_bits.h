/* Portable bit helpers for the compiled core (gcc, clang, MSVC). */
#ifndef OTHELLO_BITS_H
#define OTHELLO_BITS_H
#include <stdint.h>

#if defined(_MSC_VER)
#include <intrin.h>
static __inline int bits_ctz(uint64_t x) { unsigned long i; _BitScanForward64(&i, x); return (int)i; }
static __inline int bits_msb(uint64_t x) { unsigned long i; _BitScanReverse64(&i, x); return (int)i; }
#else
static inline int bits_ctz(uint64_t x) { return __builtin_ctzll(x); }
static inline int bits_msb(uint64_t x) { return 63 - __builtin_clzll(x); }
#endif

#if defined(__POPCNT__) && !defined(_MSC_VER)
static inline int bits_count(uint64_t x) { return __builtin_popcountll(x); }
#else
static inline int bits_count(uint64_t x) {
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}
#endif

/* Seconds on a monotonic clock, for search time limits. */
#if defined(_WIN32)
#include <windows.h>
static double bits_now(void) {
    LARGE_INTEGER f, c;
    QueryPerformanceFrequency(&f);
    QueryPerformanceCounter(&c);
    return (double)c.QuadPart / (double)f.QuadPart;
}
#else
#include <time.h>
static double bits_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}
#endif
#endif
