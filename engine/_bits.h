/* Portable bit helpers for the compiled core (gcc, clang, MSVC). */
#ifndef OTHELLO_BITS_H
#define OTHELLO_BITS_H
#include <stdint.h>

#if defined(_MSC_VER)
#define BITS_INLINE static __inline
#else
#define BITS_INLINE static inline
#endif

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
BITS_INLINE int bits_count(uint64_t x) {
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}
#endif

/* The bits of x under mask m, packed to the low end (BMI2's pext where the CPU has it). */
#if defined(__BMI2__) && !defined(_MSC_VER)
#include <immintrin.h>
#define BITS_HAVE_PEXT 1
static inline uint64_t bits_pext(uint64_t x, uint64_t m) { return _pext_u64(x, m); }
#else
#define BITS_HAVE_PEXT 0
BITS_INLINE uint64_t bits_pext(uint64_t x, uint64_t m) {
    uint64_t r = 0, bit = 1;
    while (m) {
        if (x & m & (0 - m)) r |= bit;
        m &= m - 1;
        bit <<= 1;
    }
    return r;
}
#endif

/* Legal moves (8x8) of the side with discs P against O: along each line (shifts 1, 8, 7, 9)
   runs of O that start next to P are grown by doubling (1, 2, then 4 squares), then stepped
   once more onto the empty square beyond.  With AVX2 the four lines run in one vector. */
#if defined(__GNUC__) && defined(__AVX2__)
typedef uint64_t bits_v4 __attribute__((vector_size(32)));
static inline uint64_t bits_moves8(uint64_t P, uint64_t O) {
    const bits_v4 d = {1, 8, 7, 9}, d2 = {2, 16, 14, 18};
    const uint64_t inner = O & 0x7E7E7E7E7E7E7E7EULL;  /* no wrap across the a/h edge */
    const bits_v4 p = {P, P, P, P}, m = {inner, O, inner, inner};
    bits_v4 fl = m & (p << d), fr = m & (p >> d);
    bits_v4 ml, mr, r;
    fl |= m & (fl << d);
    fr |= m & (fr >> d);
    ml = m & (m << d);
    mr = ml >> d;
    fl |= ml & (fl << d2);
    fr |= mr & (fr >> d2);
    fl |= ml & (fl << d2);
    fr |= mr & (fr >> d2);
    r = (fl << d) | (fr >> d);
    return (r[0] | r[1] | r[2] | r[3]) & ~(P | O);
}
#else
BITS_INLINE uint64_t bits_line_moves(uint64_t P, uint64_t m, int d) {
    uint64_t fl = m & (P << d), fr = m & (P >> d), ml, mr;
    fl |= m & (fl << d);
    fr |= m & (fr >> d);
    ml = m & (m << d);
    mr = ml >> d;
    fl |= ml & (fl << (2 * d));
    fr |= mr & (fr >> (2 * d));
    fl |= ml & (fl << (2 * d));
    fr |= mr & (fr >> (2 * d));
    return (fl << d) | (fr >> d);
}
BITS_INLINE uint64_t bits_moves8(uint64_t P, uint64_t O) {
    const uint64_t inner = O & 0x7E7E7E7E7E7E7E7EULL;  /* no wrap across the a/h edge */
    return (bits_line_moves(P, inner, 1) | bits_line_moves(P, O, 8) | bits_line_moves(P, inner, 7)
            | bits_line_moves(P, inner, 9)) & ~(P | O);
}
#endif

/* The shared hash table: four 64-bit words, each read and written once (volatile), so that a
   reader can check that the words it read were written together (check = hash ^ data). */
typedef struct { uint64_t P, O, data, check; } bits_tt_entry;
BITS_INLINE void bits_tt_read(const bits_tt_entry* e, bits_tt_entry* out) {
    const volatile uint64_t* v = (const volatile uint64_t*)e;
    out->P = v[0]; out->O = v[1]; out->data = v[2]; out->check = v[3];
}
BITS_INLINE void bits_tt_write(bits_tt_entry* e, uint64_t P, uint64_t O, uint64_t data, uint64_t check) {
    volatile uint64_t* v = (volatile uint64_t*)e;
    v[0] = P; v[1] = O; v[2] = data; v[3] = check;
}
/* A 64-bit word shared by threads without a lock (a hint: a stale value is harmless). */
BITS_INLINE uint64_t bits_load64(const uint64_t* p) { return *(const volatile uint64_t*)p; }
BITS_INLINE void bits_store64(uint64_t* p, uint64_t v) { *(volatile uint64_t*)p = v; }
/* A flag set by one thread and polled by others. */
BITS_INLINE int bits_flag(const int* p) { return *(const volatile int*)p; }
BITS_INLINE void bits_set_flag(int* p, int v) { *(volatile int*)p = v; }

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
