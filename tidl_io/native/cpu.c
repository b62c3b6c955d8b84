/* What the CPU has, found once at load time, and the kernels' parameters chosen from it.
 *
 * ISA levels (tio_set_isa): which hand-written vector kernels may run, at most what the CPU has.
 *   0 portable  the plain C loops only (the reference; what a CPU without the others runs)
 *   1 sse2 / neon  the 128-bit register tiles and (de)interleaves (x86-64: SSE2 is baseline,
 *               SSSE3 byte shuffles where the CPU has them; aarch64: NEON is baseline)
 *   2 avx2      the 256-bit kernels (x86-64 builds with run-time dispatch, CPUs with AVX2)
 *   3 avx512    the 512-bit kernels of avx512.c (CPUs with AVX-512 F, BW, VL and VBMI whose OS saves the
 *               zmm state; the SIMDe build: on any CPU, through SIMDe's portable code)
 * Every level gives the same bytes (the tests run each one against NumPy). The loops the compiler
 * vectorizes itself (TIO_CLONES) follow the CPU, not the level: they are the same C at every level.
 *
 * Caches, in order of trust: Linux sysfs (/sys/devices/system/cpu/cpu0/cache/index*: every
 * architecture), then cpuid (x86: leaf 4, or AMD's 0x8000001D), then sysconf (glibc), else the
 * defaults below; each size must be plausible to be taken. The kernels' blocking follows from them:
 *   sq_tile   the in-place square transpose's block (cells): both blocks of a swap within L1d
 *             (4096^2 float32 on a Zen 3, 32 KiB L1d, one thread, CPU time / np.copyto's, two runs:
 *             blocks of 32: 1.91-2.05x, 48: 1.62-1.66x, 64: 1.66-1.76x, 80: 1.73-1.75x, 128 (the
 *             constant before): 1.73-1.87x, 176 (half of L2): 1.81-1.97x, 256: 1.78-1.85x)
 *   nt_min    output bytes from which transposes store whole lines non-temporally: twice L2, 1-8 MiB
 *             (1 MiB, the constant before, on the Zen 3 and on the Intel Xeon it was measured on)
 *   split_min bytes moved (read + written) up to which the plain moves (rows, (de)interleaves) run
 *             on one thread: the last-level cache (L3, else L2). Such data is in the caches between
 *             calls, and split into chunks that the threads take in turn (threads.c), each call's lines
 *             land on another core than the last call's, whose private L2 then hands them over;
 *             the per-byte work (a shuffle) is too small to gain that back (pack HWC uint8 1080p,
 *             12 MB moved, on the Zen 3: 2T 0.81x a copy, 1T 0.63x, tools/bench_buffers.py)
 */
#define _GNU_SOURCE 1
#include "tidl_io_native.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#define TIO_DEFAULT_L1D ((int64_t)32 << 10)
#define TIO_DEFAULT_L2 ((int64_t)256 << 10)
#define TIO_DEFAULT_L3 ((int64_t)0) /* unknown: treated as L2 */

static int64_t tio_l1d, tio_l2, tio_l3, tio_line;
static const char *tio_cache_source = "defaults";
static int64_t tio_sq_tile_cells[9]; /* by cell size 1..8 (others: the 8-byte value) */
static int64_t tio_nt_bytes, tio_split_bytes;
static int tio_max_level, tio_level;
#if defined(TIO_X86_DISPATCH)
static int tio_fma;
#endif
static int tio_ready;

static int64_t tio_plausible(int64_t size, int64_t lo, int64_t hi) { return size >= lo && size <= hi ? size : 0; }

/* sysfs: "32K", "512K", "32768K", "1M" */
static int64_t tio_read_size(const char *path)
{
    char text[64] = {0};
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    int64_t v = 0;
    const char *p = text;
    while (*p >= '0' && *p <= '9')
        v = v * 10 + (*p++ - '0');
    if (*p == 'K')
        v <<= 10;
    else if (*p == 'M')
        v <<= 20;
    else if (*p == 'G')
        v <<= 30;
    return v;
}

static void tio_caches_sysfs(void)
{
    char path[128], text[32];
    for (int i = 0; i < 8; i++) {
        int64_t level = 0, size, line;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        level = tio_read_size(path);
        if (level < 1)
            continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        FILE *f = fopen(path, "r");
        if (f == NULL)
            continue;
        size_t n = fread(text, 1, sizeof text - 1, f);
        fclose(f);
        text[n] = 0;
        if (strncmp(text, "Data", 4) != 0 && strncmp(text, "Unified", 7) != 0)
            continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        size = tio_read_size(path);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/coherency_line_size", i);
        line = tio_read_size(path);
        if (level == 1 && !tio_l1d)
            tio_l1d = tio_plausible(size, 4 << 10, 4 << 20);
        else if (level == 2 && !tio_l2)
            tio_l2 = tio_plausible(size, 32 << 10, (int64_t)64 << 20);
        else if (level == 3 && !tio_l3)
            tio_l3 = tio_plausible(size, 64 << 10, (int64_t)4 << 30);
        if (!tio_line)
            tio_line = tio_plausible(line, 16, 1024);
    }
    if (tio_l1d || tio_l2)
        tio_cache_source = "sysfs";
}

#if defined(__x86_64__) || defined(__i386__)
/* cpuid leaf 4 (Intel) or 0x8000001D (AMD, with TOPOEXT): one cache per sub-leaf */
static void tio_caches_cpuid(void)
{
    unsigned a, b, c, d, leaf = 4, top;
    if (!__get_cpuid(0, &top, &b, &c, &d))
        return;
    int amd = b == 0x68747541; /* "Auth" */
    if (amd) {
        if (!__get_cpuid(0x80000000, &top, &b, &c, &d) || top < 0x8000001D)
            return;
        if (!__get_cpuid(0x80000001, &a, &b, &c, &d) || !(c & (1u << 22))) /* TOPOEXT */
            return;
        leaf = 0x8000001D;
    } else if (top < 4) {
        return;
    }
    int found = 0;
    for (unsigned i = 0; i < 16; i++) {
        __cpuid_count(leaf, i, a, b, c, d);
        unsigned type = a & 31, level = (a >> 5) & 7;
        if (type == 0)
            break;
        if (type == 2) /* instructions */
            continue;
        int64_t line = (b & 0xFFF) + 1, parts = ((b >> 12) & 0x3FF) + 1, ways = ((b >> 22) & 0x3FF) + 1;
        int64_t size = ways * parts * line * ((int64_t)c + 1);
        if (level == 1 && !tio_l1d)
            tio_l1d = tio_plausible(size, 4 << 10, 4 << 20), found = 1;
        else if (level == 2 && !tio_l2)
            tio_l2 = tio_plausible(size, 32 << 10, (int64_t)64 << 20), found = 1;
        else if (level == 3 && !tio_l3)
            tio_l3 = tio_plausible(size, 64 << 10, (int64_t)4 << 30), found = 1;
        if (!tio_line)
            tio_line = tio_plausible(line, 16, 1024);
    }
    if (found && strcmp(tio_cache_source, "defaults") == 0)
        tio_cache_source = "cpuid";
}
#endif

static void tio_caches_sysconf(void)
{
    int found = 0;
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE) && defined(_SC_LEVEL3_CACHE_SIZE)
    if (!tio_l1d)
        tio_l1d = tio_plausible(sysconf(_SC_LEVEL1_DCACHE_SIZE), 4 << 10, 4 << 20), found |= tio_l1d != 0;
    if (!tio_l2)
        tio_l2 = tio_plausible(sysconf(_SC_LEVEL2_CACHE_SIZE), 32 << 10, (int64_t)64 << 20), found |= tio_l2 != 0;
    if (!tio_l3)
        tio_l3 = tio_plausible(sysconf(_SC_LEVEL3_CACHE_SIZE), 64 << 10, (int64_t)4 << 30), found |= tio_l3 != 0;
#endif
#if defined(_SC_LEVEL1_DCACHE_LINESIZE)
    if (!tio_line)
        tio_line = tio_plausible(sysconf(_SC_LEVEL1_DCACHE_LINESIZE), 16, 1024);
#endif
    if (found && strcmp(tio_cache_source, "defaults") == 0)
        tio_cache_source = "sysconf";
}

static int64_t tio_clamp(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

static void tio_cpu_init(void)
{
    if (__atomic_load_n(&tio_ready, __ATOMIC_ACQUIRE))
        return;
    tio_caches_sysfs();
#if defined(__x86_64__) || defined(__i386__)
    if (!tio_l1d || !tio_l2 || !tio_l3)
        tio_caches_cpuid();
#endif
    if (!tio_l1d || !tio_l2)
        tio_caches_sysconf();
    if (!tio_l1d)
        tio_l1d = TIO_DEFAULT_L1D;
    if (!tio_l2)
        tio_l2 = TIO_DEFAULT_L2;
    if (!tio_l3)
        tio_l3 = TIO_DEFAULT_L3;
    if (!tio_line)
        tio_line = 64;
    /* the in-place transpose: the largest multiple of 16 cells whose two blocks fit in L1d, 32 to 256:
       64 with 32 or 48 KiB and 4-byte cells, 128 with 1-byte cells */
    for (int cell = 1; cell <= 8; cell++) {
        int64_t t = 32;
        while (t + 16 <= 256 && 2 * (t + 16) * (t + 16) * cell <= tio_l1d)
            t += 16;
#if defined(TIO_SQ_TILE) /* (a fixed block, for measuring) */
        t = TIO_SQ_TILE;
#endif
        tio_sq_tile_cells[cell] = t;
    }
    tio_nt_bytes = tio_clamp(2 * tio_l2, (int64_t)1 << 20, (int64_t)8 << 20);
    tio_split_bytes = tio_l3 > tio_l2 ? tio_l3 : tio_l2;
#if defined(TIO_SIMDE)
    tio_max_level = 3; /* (the AVX-512 kernels through SIMDe: any CPU) */
#elif defined(TIO_X86_DISPATCH)
    __builtin_cpu_init();
    tio_max_level = __builtin_cpu_supports("avx2") ? 2 : 1;
    /* (libgcc's checks include the OS's XSAVE of the zmm and mask registers) */
    if (tio_max_level == 2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")
        && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vbmi"))
        tio_max_level = 3;
    tio_fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#elif defined(__SSE2__) || defined(__ARM_NEON) || defined(__aarch64__)
    tio_max_level = 1;
#else
    tio_max_level = 0;
#endif
    __atomic_store_n(&tio_level, tio_max_level, __ATOMIC_RELAXED);
    __atomic_store_n(&tio_ready, 1, __ATOMIC_RELEASE);
}

/* at load time (the lazy calls above only matter for a library loaded without constructors) */
__attribute__((constructor)) static void tio_cpu_ctor(void) { tio_cpu_init(); }

int tio_set_isa(int level)
{
    tio_cpu_init();
    if (level < 0 || level > tio_max_level)
        level = tio_max_level;
    __atomic_store_n(&tio_level, level, __ATOMIC_RELAXED);
    return level;
}

void tio_set_simd(int on) { tio_set_isa(on ? -1 : 0); }

int tio_isa_level(void)
{
    tio_cpu_init();
    return __atomic_load_n(&tio_level, __ATOMIC_RELAXED);
}

int tio_simd_on(void) { return tio_isa_level() >= 1; }

#if defined(TIO_X86_DISPATCH)
int tio_cpu_avx2(void) { return tio_isa_level() >= 2; }
int tio_cpu_avx2_fma(void) { return tio_isa_level() >= 2 && tio_fma; }
#endif

int64_t tio_sq_tile(int64_t cell)
{
    tio_cpu_init();
    return tio_sq_tile_cells[cell >= 1 && cell <= 8 ? cell : 8];
}

int64_t tio_l2_size(void)
{
    tio_cpu_init();
    return tio_l2;
}

int64_t tio_line_size(void)
{
    tio_cpu_init();
    return tio_line;
}

int64_t tio_split_min(void)
{
    tio_cpu_init();
    return tio_split_bytes;
}

int64_t tio_nt_min(void)
{
    tio_cpu_init();
    return tio_nt_bytes;
}

static const char *const tio_level_names[4] = {
    "portable",
#if defined(__aarch64__) || defined(__ARM_NEON)
    "neon",
#else
    "sse2",
#endif
    "avx2",
    "avx512",
};

const char *tio_tuning(void)
{
    static char text[512];
    static int done = 0;
    tio_cpu_init();
    if (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) { /* (the same text from any thread) */
        char levels[64] = "";
        for (int k = 0; k <= tio_max_level; k++) {
            strcat(levels, tio_level_names[k]);
            if (k < tio_max_level)
                strcat(levels, ",");
        }
        snprintf(text, sizeof text,
                 "levels=%s l1d=%lld l2=%lld l3=%lld line=%lld caches=%s sq_tile_f32=%lld sq_tile_u8=%lld "
                 "nt_min=%lld split_min=%lld",
                 levels, (long long)tio_l1d, (long long)tio_l2, (long long)tio_l3, (long long)tio_line,
                 tio_cache_source, (long long)tio_sq_tile_cells[4], (long long)tio_sq_tile_cells[1],
                 (long long)tio_nt_bytes, (long long)tio_split_bytes);
        __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
    }
    return text;
}
