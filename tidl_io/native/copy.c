/* Strided copies (the permute / reorg / layout-change engine), the in-place square transpose and
 * the zero test of padding.
 *
 * tio_copy gets the axes already simplified by the caller (size-1 axes dropped, destination strides
 * positive and descending, mergeable neighbours merged), so the last axis `a` is the destination's
 * innermost. It picks one of:
 *   rows        both sides contiguous along a: memcpy of rows;
 *   deinterleave  the source is contiguous along another axis b of 2-4 lanes packed along a
 *                 (HWC -> CHW with 3 channels, reorg / space-to-depth with stride 2-4);
 *   interleave    the reverse (CHW -> HWC with 2-4 channels);
 *   transpose   the source is contiguous along b: a cache-blocked 2-D transpose of the (b, a) plane
 *               for every index of the other axes, with register-tile kernels beside a portable
 *               loop: 16 x 16 bytes (SSE2, NEON), 4 x 4 four-byte cells (SSE2, NEON) and 8 x 8 (AVX2,
 *               picked at run time on x86-64); on x86 through a block buffer, see tio_tr_strip;
 *   general     anything else: one strided loop per destination row.
 * (check_padding has no kernel here: NumPy's count_nonzero over the pad blocks measured twice as fast
 * as a plain C count, 0.45x vs 0.90x a copy of the buffer.)
 * Work is split into items (outer index x strip) shared by up to `threads` threads.
 */
#include "tidl_io_native.h"

#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#include <xmmintrin.h>
#define TIO_SSE2 1
#endif
#if defined(__ARM_NEON) || defined(__aarch64__)
#include <arm_neon.h>
#define TIO_NEON 1
#endif

#define TIO_ROW_CHUNK ((int64_t)1 << 18) /* bytes per work item for row copies */
#define TIO_LANE_CHUNK ((int64_t)1 << 14) /* elements per work item for (de)interleaves */
/* Transpose blocks: TIO_TILE_A destination columns (= source rows read side by side) by
 * TIO_STRIP_BYTES of each source row. Narrow and long measured best at DRAM sizes (tools/
 * bench_rearrange.py, 2-D float32 4095 x 4097 and NCHW -> NHWC 8 x 64 x 208 x 208 on a Zen 3: 1.7-3.2x a
 * copy with 64 x 256 bytes, 1.2-1.5x with one register tile x 4 KiB): few source streams for the
 * prefetchers, and the destination lines, completed over the next few blocks, stay in L1/L2. */
#ifndef TIO_TILE_A
#define TIO_TILE_A(isz) ((isz) == 1 ? 16 : 8) /* one register tile: 16 x 16 bytes, 8 x 8 four-byte cells */
#endif
#ifndef TIO_STRIP_BYTES
#define TIO_STRIP_BYTES 4096
#endif

/* On x86 the transposes with destination rows longer than 512 bytes go through a block buffer instead
 * (tio_tr_strip): TIO_TR_RUN bytes of each of TIO_TR_COLS source rows are transposed into the buffer
 * (at most 48 KiB, on each thread's stack), whose rows are then copied out as destination runs, with
 * non-temporal stores for whole cache lines once the output is tio_nt_min() or more (twice L2) (below, a
 * 1000 x 1000 float32 transpose took 4x a copy with plain stores, 1.1x with them). Why, measured on an
 * Intel Xeon (Sapphire / Emerald Rapids class, KVM, 2 vCPUs; 2-D float32 4096 x 4096 and 4095 x 4097,
 * one thread, times np.copyto of the same bytes): the tiles writing straight into the destination
 * took 4.5-5.7x. The
 * cost is the destination: 8 rows x 32 bytes per tile, each destination line written in two halves
 * 1024 rows apart, is a demand RFO miss per store that no prefetcher follows (stores alone in that
 * pattern: 2-4x the time of sequential stores; loads in the same pattern 1-2x). Not the cause: huge
 * pages (no change: not the TLB), tile size / strip length (8-64 x 256 B-4 KiB: 3.2-6x), software
 * prefetch of either side (no gain), register tiles of 16 x 16 writing whole lines (3.5-4x), and 4
 * KiB aliasing (4095 x 4097 is as slow as 4096 x 4096). A buffer alone, with plain stores (runs of
 * 512 bytes both sides, 128 KiB buffer): 1.7-2x. Whole-line non-temporal stores from the buffer take
 * the read-for-ownership away: 0.5-1.0x with a 32 KiB buffer (and from the tiles directly, half
 * lines: 15-50x: write combining needs whole lines). Blocks of 32 rows x 1024 bytes then did better
 * than 64 x 512 where rows are not line aligned (4095 x 4097: 1.1-1.3x against 1.25-2x). Shorter
 * destination rows keep the direct tiles (tio_copy says why).
 * The source rows per block are chosen from L2 at load time (tio_tr_cols): 64 where a block's source
 * bytes and its buffer fill at most half of L2, else 32. Measured on a Zen 3 (512 KiB L2, 32 KiB L1d,
 * 2 vCPUs shared with other work; one thread, CPU time / np.copyto's, two runs each, before the
 * blocks were filled a tile's height of source rows at a time, see tio_tr_strip): 4096 x 4096
 * float32 2.10-2.50x with 32 rows, 2.27-2.28x with 64, 2.11-2.20x with 128; 4095 x 4097 1.73-2.12x
 * with 32, 1.40-1.70x with 64, 1.39-1.65x with 128. */
#ifndef TIO_TR_RUN
#define TIO_TR_RUN 1024 /* bytes of each source row per block */
#endif
/* source rows per block: c (tio_tr_cols: 32 or 64), and at least a line of each destination row (tio_tr_strip
 * relies on it) */
#define TIO_TR_COLS_MAX 64
#define TIO_TR_COLS(isz, c) (64 / (isz) > (c) ? 64 / (isz) : (c))
#define TIO_TR_ROWS(isz) (TIO_TR_RUN / (isz) < 256 ? TIO_TR_RUN / (isz) : 256) /* destination rows per strip */
#define TIO_TR_LEAD 64
#define TIO_TR_GROUP(isz) ((isz) == 1 ? 16 : 8) /* source rows per pass over a block: a register tile's height */
#define TIO_TR_BYTES_C(isz, c) (TIO_TR_ROWS(isz) * (TIO_TR_LEAD + TIO_TR_COLS(isz, c) * (isz))) /* a strip's buffer */
#define TIO_TR_BYTES(isz) TIO_TR_BYTES_C(isz, TIO_TR_COLS_MAX)
#define TIO_TR_MAX(x, y) ((x) > (y) ? (x) : (y))
#define TIO_TR_BUF TIO_TR_MAX(TIO_TR_MAX(TIO_TR_BYTES(1), TIO_TR_BYTES(2)), TIO_TR_MAX(TIO_TR_BYTES(4), TIO_TR_BYTES(8)))
#if defined(TIO_SSE2) && (defined(__x86_64__) || defined(__i386__)) && !defined(TIO_NO_TR_BUF)
#define TIO_TR_BUFFERED 1
#endif

int64_t tio_tr_cols(void)
{
#if defined(TIO_TR_COLS_FIXED) /* (for measuring) */
    return TIO_TR_COLS_FIXED;
#endif
    /* a float32 block: 64 source rows of TIO_TR_RUN bytes and its buffer, within half of L2 */
    return 64 * TIO_TR_RUN + TIO_TR_BYTES_C(4, 64) <= tio_l2_size() / 2 ? 64 : 32;
}

enum { TIO_ROWS, TIO_DEINTERLEAVE, TIO_INTERLEAVE, TIO_TRANSPOSE, TIO_GENERAL };

typedef struct {
    char *dst;
    const char *src;
    int64_t isz;
    int kind;
    tio_walk walk;            /* outer axes (a = dst, b = src byte strides) */
    int64_t na, dsa, ssa;     /* innermost destination axis */
    int64_t nb, dsb, ssb;     /* the plane's other axis (transposes, lanes) */
    int64_t pieces;           /* work items per outer index */
    int64_t strip;            /* transpose: b indices per item */
    int level;                /* the ISA level (tio_isa_level), read once by the calling thread */
    int buffered;             /* transpose: through the block buffer (tio_tr_strip) */
    int nt;                   /* transpose: non-temporal stores of whole destination lines */
    int64_t cols;             /* transpose: source rows per block of the buffer (tio_tr_cols) */
} tio_cjob;

/* ---- scalar helpers ---------------------------------------------------------------------------- */

static inline void tio_copy_item(char *d, const char *s, int64_t isz)
{
    switch (isz) {
    case 1: *(uint8_t *)d = *(const uint8_t *)s; break;
    case 2: memcpy(d, s, 2); break;
    case 4: memcpy(d, s, 4); break;
    case 8: memcpy(d, s, 8); break;
    default: memcpy(d, s, (size_t)isz);
    }
}

#define TIO_STRIDED(T)                                                                                     \
    static void tio_strided_##T(char *d, int64_t ds, const char *s, int64_t ss, int64_t n)                 \
    {                                                                                                      \
        for (int64_t i = 0; i < n; i++)                                                                    \
            *(T *)(d + i * ds) = *(const T *)(s + i * ss);                                                 \
    }
TIO_STRIDED(uint8_t)
TIO_STRIDED(uint16_t)
TIO_STRIDED(uint32_t)
TIO_STRIDED(uint64_t)

static void tio_strided(char *d, int64_t ds, const char *s, int64_t ss, int64_t n, int64_t isz)
{
    switch (isz) {
    case 1: tio_strided_uint8_t(d, ds, s, ss, n); return;
    case 2: if (((uintptr_t)d | (uintptr_t)s | (uint64_t)ds | (uint64_t)ss) % 2 == 0) { tio_strided_uint16_t(d, ds, s, ss, n); return; } break;
    case 4: if (((uintptr_t)d | (uintptr_t)s | (uint64_t)ds | (uint64_t)ss) % 4 == 0) { tio_strided_uint32_t(d, ds, s, ss, n); return; } break;
    case 8: if (((uintptr_t)d | (uintptr_t)s | (uint64_t)ds | (uint64_t)ss) % 8 == 0) { tio_strided_uint64_t(d, ds, s, ss, n); return; } break;
    default: break;
    }
    for (int64_t i = 0; i < n; i++)
        memcpy(d + i * ds, s + i * ss, (size_t)isz);
}

/* ---- (de)interleave of 2-4 lanes ---------------------------------------------------------------- */

#define TIO_DEINT(T)                                                                                       \
    TIO_CLONES static void tio_deint2_##T(char *D, int64_t dl, const char *S, int64_t n)                   \
    {                                                                                                      \
        T *restrict d0 = (T *)D, *restrict d1 = (T *)(D + dl);                                             \
        const T *restrict s = (const T *)S;                                                                \
        for (int64_t j = 0; j < n; j++) {                                                                  \
            d0[j] = s[2 * j];                                                                              \
            d1[j] = s[2 * j + 1];                                                                          \
        }                                                                                                  \
    }                                                                                                      \
    TIO_CLONES static void tio_deint3_##T(char *D, int64_t dl, const char *S, int64_t n)                   \
    {                                                                                                      \
        T *restrict d0 = (T *)D, *restrict d1 = (T *)(D + dl), *restrict d2 = (T *)(D + 2 * dl);           \
        const T *restrict s = (const T *)S;                                                                \
        for (int64_t j = 0; j < n; j++) {                                                                  \
            d0[j] = s[3 * j];                                                                              \
            d1[j] = s[3 * j + 1];                                                                          \
            d2[j] = s[3 * j + 2];                                                                          \
        }                                                                                                  \
    }                                                                                                      \
    TIO_CLONES static void tio_deint4_##T(char *D, int64_t dl, const char *S, int64_t n)                   \
    {                                                                                                      \
        T *restrict d0 = (T *)D, *restrict d1 = (T *)(D + dl), *restrict d2 = (T *)(D + 2 * dl),           \
                    *restrict d3 = (T *)(D + 3 * dl);                                                      \
        const T *restrict s = (const T *)S;                                                                \
        for (int64_t j = 0; j < n; j++) {                                                                  \
            d0[j] = s[4 * j];                                                                              \
            d1[j] = s[4 * j + 1];                                                                          \
            d2[j] = s[4 * j + 2];                                                                          \
            d3[j] = s[4 * j + 3];                                                                          \
        }                                                                                                  \
    }                                                                                                      \
    TIO_CLONES static void tio_int2_##T(char *D, const char *S, int64_t sl, int64_t n)                     \
    {                                                                                                      \
        T *restrict d = (T *)D;                                                                            \
        const T *restrict s0 = (const T *)S, *restrict s1 = (const T *)(S + sl);                           \
        for (int64_t j = 0; j < n; j++) {                                                                  \
            d[2 * j] = s0[j];                                                                              \
            d[2 * j + 1] = s1[j];                                                                          \
        }                                                                                                  \
    }                                                                                                      \
    TIO_CLONES static void tio_int3_##T(char *D, const char *S, int64_t sl, int64_t n)                     \
    {                                                                                                      \
        T *restrict d = (T *)D;                                                                            \
        const T *restrict s0 = (const T *)S, *restrict s1 = (const T *)(S + sl),                           \
                          *restrict s2 = (const T *)(S + 2 * sl);                                          \
        for (int64_t j = 0; j < n; j++) {                                                                  \
            d[3 * j] = s0[j];                                                                              \
            d[3 * j + 1] = s1[j];                                                                          \
            d[3 * j + 2] = s2[j];                                                                          \
        }                                                                                                  \
    }                                                                                                      \
    TIO_CLONES static void tio_int4_##T(char *D, const char *S, int64_t sl, int64_t n)                     \
    {                                                                                                      \
        T *restrict d = (T *)D;                                                                            \
        const T *restrict s0 = (const T *)S, *restrict s1 = (const T *)(S + sl),                           \
                          *restrict s2 = (const T *)(S + 2 * sl), *restrict s3 = (const T *)(S + 3 * sl);  \
        for (int64_t j = 0; j < n; j++) {                                                                  \
            d[4 * j] = s0[j];                                                                              \
            d[4 * j + 1] = s1[j];                                                                          \
            d[4 * j + 2] = s2[j];                                                                          \
            d[4 * j + 3] = s3[j];                                                                          \
        }                                                                                                  \
    }
TIO_DEINT(uint8_t)
TIO_DEINT(uint16_t)
TIO_DEINT(uint32_t)
TIO_DEINT(uint64_t)

typedef void (*tio_deint_fn)(char *D, int64_t dl, const char *S, int64_t n);
typedef void (*tio_int_fn)(char *D, const char *S, int64_t sl, int64_t n);

static const tio_deint_fn tio_deints[4][3] = {
    {tio_deint2_uint8_t, tio_deint3_uint8_t, tio_deint4_uint8_t},
    {tio_deint2_uint16_t, tio_deint3_uint16_t, tio_deint4_uint16_t},
    {tio_deint2_uint32_t, tio_deint3_uint32_t, tio_deint4_uint32_t},
    {tio_deint2_uint64_t, tio_deint3_uint64_t, tio_deint4_uint64_t},
};
static const tio_int_fn tio_ints[4][3] = {
    {tio_int2_uint8_t, tio_int3_uint8_t, tio_int4_uint8_t},
    {tio_int2_uint16_t, tio_int3_uint16_t, tio_int4_uint16_t},
    {tio_int2_uint32_t, tio_int3_uint32_t, tio_int4_uint32_t},
    {tio_int2_uint64_t, tio_int3_uint64_t, tio_int4_uint64_t},
};

static int tio_log2_size(int64_t isz)
{
    return isz == 1 ? 0 : isz == 2 ? 1 : isz == 4 ? 2 : isz == 8 ? 3 : -1;
}

/* ---- register-tile transposes ----------------------------------------------------------------------
 * tr_*(d, dsb, s, ssa): d[i * dsb + j] = s[j * ssa + i] for a K x K tile (strides in elements). */

#if defined(TIO_SSE2)
static inline void tio_tr4_32(uint32_t *d, int64_t dsb, const uint32_t *s, int64_t ssa)
{
    __m128 r0 = _mm_loadu_ps((const float *)s), r1 = _mm_loadu_ps((const float *)(s + ssa));
    __m128 r2 = _mm_loadu_ps((const float *)(s + 2 * ssa)), r3 = _mm_loadu_ps((const float *)(s + 3 * ssa));
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    _mm_storeu_ps((float *)d, r0);
    _mm_storeu_ps((float *)(d + dsb), r1);
    _mm_storeu_ps((float *)(d + 2 * dsb), r2);
    _mm_storeu_ps((float *)(d + 3 * dsb), r3);
}

static inline void tio_tr16_8(uint8_t *d, int64_t dsb, const uint8_t *s, int64_t ssa)
{
    __m128i a[16], b[16], c[16];
    for (int k = 0; k < 16; k++)
        a[k] = _mm_loadu_si128((const __m128i *)(s + k * ssa));
    for (int k = 0; k < 8; k++) { /* b[2k] / b[2k+1]: rows 2k, 2k+1, columns 0-7 / 8-15 */
        b[2 * k] = _mm_unpacklo_epi8(a[2 * k], a[2 * k + 1]);
        b[2 * k + 1] = _mm_unpackhi_epi8(a[2 * k], a[2 * k + 1]);
    }
    for (int g = 0; g < 4; g++) { /* c[4g + m]: rows 4g..4g+3, columns 4m..4m+3 */
        c[4 * g] = _mm_unpacklo_epi16(b[4 * g], b[4 * g + 2]);
        c[4 * g + 1] = _mm_unpackhi_epi16(b[4 * g], b[4 * g + 2]);
        c[4 * g + 2] = _mm_unpacklo_epi16(b[4 * g + 1], b[4 * g + 3]);
        c[4 * g + 3] = _mm_unpackhi_epi16(b[4 * g + 1], b[4 * g + 3]);
    }
    for (int h = 0; h < 2; h++) /* b[8h + k]: rows 8h..8h+7, columns 2k, 2k+1 */
        for (int m = 0; m < 4; m++) {
            b[8 * h + 2 * m] = _mm_unpacklo_epi32(c[8 * h + m], c[8 * h + 4 + m]);
            b[8 * h + 2 * m + 1] = _mm_unpackhi_epi32(c[8 * h + m], c[8 * h + 4 + m]);
        }
    for (int k = 0; k < 8; k++) {
        _mm_storeu_si128((__m128i *)(d + (2 * k) * dsb), _mm_unpacklo_epi64(b[k], b[8 + k]));
        _mm_storeu_si128((__m128i *)(d + (2 * k + 1) * dsb), _mm_unpackhi_epi64(b[k], b[8 + k]));
    }
}

/* 8 x 8 two-byte cells: interleave 16-, 32-, then 64-bit units of row pairs. */
static inline void tio_tr8_16(uint16_t *d, int64_t dsb, const uint16_t *s, int64_t ssa)
{
    __m128i a[8], b[8];
    for (int k = 0; k < 8; k++)
        a[k] = _mm_loadu_si128((const __m128i *)(s + k * ssa));
    for (int k = 0; k < 4; k++) { /* b[2k] / b[2k+1]: rows 2k, 2k+1 interleaved, columns 0-3 / 4-7 */
        b[2 * k] = _mm_unpacklo_epi16(a[2 * k], a[2 * k + 1]);
        b[2 * k + 1] = _mm_unpackhi_epi16(a[2 * k], a[2 * k + 1]);
    }
    for (int h = 0; h < 2; h++) /* a[4h + m]: rows 4h..4h+3, columns 2m, 2m+1 */
        for (int m = 0; m < 2; m++) {
            a[4 * h + 2 * m] = _mm_unpacklo_epi32(b[4 * h + m], b[4 * h + 2 + m]);
            a[4 * h + 2 * m + 1] = _mm_unpackhi_epi32(b[4 * h + m], b[4 * h + 2 + m]);
        }
    for (int m = 0; m < 4; m++) {
        _mm_storeu_si128((__m128i *)(d + (2 * m) * dsb), _mm_unpacklo_epi64(a[m], a[4 + m]));
        _mm_storeu_si128((__m128i *)(d + (2 * m + 1) * dsb), _mm_unpackhi_epi64(a[m], a[4 + m]));
    }
}
#define TIO_HAVE_TR8 1
#define TIO_HAVE_TR16 1
#define TIO_HAVE_TR32 1
#elif defined(TIO_NEON)
static inline void tio_tr4_32(uint32_t *d, int64_t dsb, const uint32_t *s, int64_t ssa)
{
    uint32x4_t r0 = vld1q_u32(s), r1 = vld1q_u32(s + ssa), r2 = vld1q_u32(s + 2 * ssa), r3 = vld1q_u32(s + 3 * ssa);
    uint32x4x2_t t01 = vtrnq_u32(r0, r1), t23 = vtrnq_u32(r2, r3);
    vst1q_u32(d, vcombine_u32(vget_low_u32(t01.val[0]), vget_low_u32(t23.val[0])));
    vst1q_u32(d + dsb, vcombine_u32(vget_low_u32(t01.val[1]), vget_low_u32(t23.val[1])));
    vst1q_u32(d + 2 * dsb, vcombine_u32(vget_high_u32(t01.val[0]), vget_high_u32(t23.val[0])));
    vst1q_u32(d + 3 * dsb, vcombine_u32(vget_high_u32(t01.val[1]), vget_high_u32(t23.val[1])));
}
#define TIO_HAVE_TR32 1

/* NEON tiles transpose in rounds of 2 x 2 blocks of units of 1, 2, 4, then 8 bytes: after the round
 * with units of u bytes (SPAN = u / item size rows apart), rows i and i + SPAN hold each 2u x 2u block
 * transposed. A round of N rows with TRN on lanes of the unit's width (TO / FROM reinterpret the rows'
 * vector type VT as the lane type and back): */
#define TIO_NEON_ROUND(r, N, SPAN, TRN, PAIR, TO, FROM)                                                    \
    for (int i = 0; i < (N); i += 2 * (SPAN))                                                              \
        for (int j = i; j < i + (SPAN); j++) {                                                             \
            PAIR t = TRN(TO(r[j]), TO(r[j + (SPAN)]));                                                     \
            r[j] = FROM(t.val[0]);                                                                         \
            r[j + (SPAN)] = FROM(t.val[1]);                                                                \
        }
/* and the last round, units of 8 bytes (SPAN = N / 2 rows apart): swap the halves' high and low words */
#define TIO_NEON_ROUND64(r, N, COMBINE, LOW, HIGH)                                                         \
    for (int j = 0; j < (N) / 2; j++) {                                                                    \
        __typeof__(r[0]) a = r[j], b = r[j + (N) / 2];                                                     \
        r[j] = COMBINE(LOW(a), LOW(b));                                                                    \
        r[j + (N) / 2] = COMBINE(HIGH(a), HIGH(b));                                                        \
    }
#define TIO_SAME(x) (x)

/* 16 x 16 bytes: rounds of 1, 2, 4 and 8 bytes. */
static inline void tio_tr16_8(uint8_t *d, int64_t dsb, const uint8_t *s, int64_t ssa)
{
    uint8x16_t r[16];
    for (int k = 0; k < 16; k++)
        r[k] = vld1q_u8(s + k * ssa);
    TIO_NEON_ROUND(r, 16, 1, vtrnq_u8, uint8x16x2_t, TIO_SAME, TIO_SAME)
    TIO_NEON_ROUND(r, 16, 2, vtrnq_u16, uint16x8x2_t, vreinterpretq_u16_u8, vreinterpretq_u8_u16)
    TIO_NEON_ROUND(r, 16, 4, vtrnq_u32, uint32x4x2_t, vreinterpretq_u32_u8, vreinterpretq_u8_u32)
    TIO_NEON_ROUND64(r, 16, vcombine_u8, vget_low_u8, vget_high_u8)
    for (int k = 0; k < 16; k++)
        vst1q_u8(d + k * dsb, r[k]);
}
#define TIO_HAVE_TR8 1

/* 8 x 8 two-byte cells: the same rounds with units of 2, 4 and 8 bytes. */
static inline void tio_tr8_16(uint16_t *d, int64_t dsb, const uint16_t *s, int64_t ssa)
{
    uint16x8_t r[8];
    for (int k = 0; k < 8; k++)
        r[k] = vld1q_u16(s + k * ssa);
    TIO_NEON_ROUND(r, 8, 1, vtrnq_u16, uint16x8x2_t, TIO_SAME, TIO_SAME)
    TIO_NEON_ROUND(r, 8, 2, vtrnq_u32, uint32x4x2_t, vreinterpretq_u32_u16, vreinterpretq_u16_u32)
    TIO_NEON_ROUND64(r, 8, vcombine_u16, vget_low_u16, vget_high_u16)
    for (int k = 0; k < 8; k++)
        vst1q_u16(d + k * dsb, r[k]);
}
#define TIO_HAVE_TR16 1
#endif

/* A block of the (b, a) plane: ni destination rows (b) x nj destination columns (a), destination
 * contiguous along a, source contiguous along b; d, s typed pointers, db, sa strides in elements:
 * d[i * db + j] = s[j * sa + i]. TIO_TILES covers rows from i on with K x K register tiles (the
 * columns past the last whole tile one by one), TIO_REST the rows left. */
#define TIO_TILES(K, TILE)                                                                                 \
    for (; i + (K) <= ni; i += (K)) {                                                                      \
        int64_t nk = nj - nj % (K);                                                                        \
        for (int64_t j = 0; j < nk; j += (K))                                                              \
            TILE(d + i * db + j, db, s + j * sa + i, sa);                                                  \
        for (int64_t j = nk; j < nj; j++)                                                                  \
            for (int64_t k = i; k < i + (K); k++)                                                          \
                d[k * db + j] = s[j * sa + k];                                                             \
    }
#define TIO_REST                                                                                           \
    for (; i < ni; i++)                                                                                    \
        for (int64_t j = 0; j < nj; j++)                                                                   \
            d[i * db + j] = s[j * sa + i];

#if defined(TIO_X86_DISPATCH) && defined(TIO_HAVE_TR32)
#include <immintrin.h>
#define TIO_AVX 1
#define TIO_AVX_FN __attribute__((target("avx2")))

/* 8 x 8 four-byte cells held in ymm registers: r[k] is row k; on return r[k] is column k. */
TIO_AVX_FN static inline void tio_tr8_regs(__m256 r[8])
{
    __m256 t[8], u[8];
    for (int k = 0; k < 4; k++) {
        t[2 * k] = _mm256_unpacklo_ps(r[2 * k], r[2 * k + 1]);
        t[2 * k + 1] = _mm256_unpackhi_ps(r[2 * k], r[2 * k + 1]);
    }
    for (int h = 0; h < 2; h++) {
        u[4 * h] = _mm256_shuffle_ps(t[4 * h], t[4 * h + 2], 0x44);
        u[4 * h + 1] = _mm256_shuffle_ps(t[4 * h], t[4 * h + 2], 0xEE);
        u[4 * h + 2] = _mm256_shuffle_ps(t[4 * h + 1], t[4 * h + 3], 0x44);
        u[4 * h + 3] = _mm256_shuffle_ps(t[4 * h + 1], t[4 * h + 3], 0xEE);
    }
    for (int k = 0; k < 4; k++) {
        r[k] = _mm256_permute2f128_ps(u[k], u[4 + k], 0x20);
        r[4 + k] = _mm256_permute2f128_ps(u[k], u[4 + k], 0x31);
    }
}

TIO_AVX_FN static inline void tio_tr8_32(uint32_t *d, int64_t dsb, const uint32_t *s, int64_t ssa)
{
    __m256 r[8];
    for (int k = 0; k < 8; k++)
        r[k] = _mm256_loadu_ps((const float *)(s + k * ssa));
    tio_tr8_regs(r);
    for (int k = 0; k < 8; k++)
        _mm256_storeu_ps((float *)(d + k * dsb), r[k]);
}

/* The four-byte block of tio_block with 8 x 8 tiles, then 4 x 4, then single cells. */
TIO_AVX_FN static void tio_block32_avx(uint32_t *d, int64_t db, const uint32_t *s, int64_t sa, int64_t ni,
                                       int64_t nj)
{
    int64_t i = 0;
    TIO_TILES(8, tio_tr8_32)
    TIO_TILES(4, tio_tr4_32)
    TIO_REST
}


/* tio_block32_avx of one block of tio_tr_strip, 8 source rows at a time (see there) */
TIO_AVX_FN static void tio_block32_avx_rows(uint32_t *d, int64_t db, const uint32_t *s, int64_t sa, int64_t ni,
                                            int64_t nj)
{
    int64_t ni8 = ni - ni % 8, nj8 = nj - nj % 8;
    for (int64_t j = 0; j < nj8; j += 8)
        for (int64_t i = 0; i < ni8; i += 8)
            tio_tr8_32(d + i * db + j, db, s + j * sa + i, sa);
    for (int64_t i = 0; i < ni8; i++)
        for (int64_t j = nj8; j < nj; j++)
            d[i * db + j] = s[j * sa + i];
    for (int64_t i = ni8; i < ni; i++)
        for (int64_t j = 0; j < nj; j++)
            d[i * db + j] = s[j * sa + i];
}
#endif

#define TIO_BLOCK(T, K, TILE, HAVE)                                                                        \
    static void tio_block_##T(T *d, int64_t db, const T *s, int64_t sa, int64_t ni, int64_t nj, int level) \
    {                                                                                                      \
        int64_t i = 0;                                                                                     \
        if (HAVE && level >= 1) {                                                                          \
            TIO_TILES(K, TILE)                                                                             \
        }                                                                                                  \
        TIO_REST                                                                                           \
    }
/* (the portable build has no register tiles: the TIO_TILES branch is compiled out) */
#if !defined(TIO_HAVE_TR8)
#define tio_tr16_8(d, db, s, sa) ((void)0)
#define TIO_HAVE_TR8 0
#endif
#if !defined(TIO_HAVE_TR16)
#define tio_tr8_16(d, db, s, sa) ((void)0)
#define TIO_HAVE_TR16 0
#endif
#if !defined(TIO_HAVE_TR32)
#define tio_tr4_32(d, db, s, sa) ((void)0)
#define TIO_HAVE_TR32 0
#endif
TIO_BLOCK(uint8_t, 16, tio_tr16_8, TIO_HAVE_TR8)
TIO_BLOCK(uint16_t, 8, tio_tr8_16, TIO_HAVE_TR16)
TIO_BLOCK(uint32_t, 4, tio_tr4_32, TIO_HAVE_TR32)
#define tio_no_tile(d, db, s, sa) ((void)0)
TIO_BLOCK(uint64_t, 1, tio_no_tile, 0)

/* One block of the plane (strides in bytes), by item size. */
static void tio_block(char *d, int64_t dsb, const char *s, int64_t ssa, int64_t ni, int64_t nj, int64_t isz,
                      int level)
{
    switch (isz) {
    case 1:
#if defined(TIO_X512)
        if (level >= 3 && ni >= 64) { /* 64 destination rows at a time (avx512.c), the rest below */
            int64_t n64 = ni - ni % 64;
            tio_x512_block_u8(d, dsb, s, ssa, n64, nj);
            d += n64 * dsb, s += n64, ni -= n64;
        }
#endif
        tio_block_uint8_t((uint8_t *)d, dsb, (const uint8_t *)s, ssa, ni, nj, level);
        return;
    case 2:
        tio_block_uint16_t((uint16_t *)d, dsb / 2, (const uint16_t *)s, ssa / 2, ni, nj, level);
        return;
    case 4:
#if defined(TIO_AVX)
        if (level >= 2) {
            tio_block32_avx((uint32_t *)d, dsb / 4, (const uint32_t *)s, ssa / 4, ni, nj);
            return;
        }
#endif
        tio_block_uint32_t((uint32_t *)d, dsb / 4, (const uint32_t *)s, ssa / 4, ni, nj, level);
        return;
    case 8:
        tio_block_uint64_t((uint64_t *)d, dsb / 8, (const uint64_t *)s, ssa / 8, ni, nj, level);
        return;
    default:
        for (int64_t i = 0; i < ni; i++)
            for (int64_t j = 0; j < nj; j++)
                memcpy(d + i * dsb + j * isz, s + j * ssa + i * isz, (size_t)isz);
    }
}

#if defined(TIO_TR_BUFFERED)
/* One destination line from s to d (64-byte aligned), bypassing the caches. */
static inline void tio_stream_line(char *d, const char *s)
{
    __m128i x0 = _mm_loadu_si128((const __m128i *)s), x1 = _mm_loadu_si128((const __m128i *)(s + 16));
    __m128i x2 = _mm_loadu_si128((const __m128i *)(s + 32)), x3 = _mm_loadu_si128((const __m128i *)(s + 48));
    _mm_stream_si128((__m128i *)d, x0);
    _mm_stream_si128((__m128i *)(d + 16), x1);
    _mm_stream_si128((__m128i *)(d + 32), x2);
    _mm_stream_si128((__m128i *)(d + 48), x3);
}

/* ni destination rows of the plane (d, s at the strip's first row; ni <= TIO_TR_ROWS), all na
 * columns, in blocks of `cols` columns (>= 64 bytes) through buf. A buffer row is TIO_TR_LEAD bytes, then a
 * block's row. With nt, every whole 64-byte line of the destination goes out by non-temporal stores:
 * the bytes of a row's last, partial line wait in the TIO_TR_LEAD bytes before the row for the next
 * block, which completes the line (only a row's own first and last partial lines take plain stores;
 * they fall within the row's own bytes, so nothing outside the destination is written). */
static void tio_tr_strip(char *d, int64_t dsb, const char *s, int64_t ssa, int64_t ni, int64_t na, int64_t isz,
                         int level, int nt, int64_t cols, char *buf)
{
    const int64_t line = TIO_TR_LEAD + cols * isz;
    for (int64_t j0 = 0; j0 < na; j0 += cols) {
        int64_t nj = na - j0 < cols ? na - j0 : cols;
        int last = j0 + nj == na;
        /* a register tile's height of source rows at a time, each read from start to end, so that every
           source line is used up before the next rows come: taken a tile column at a time, down all
           the block's rows, a line's next part came after all the other rows, which with a
           power-of-two row pitch share one L1 set and a few L2 sets, and the line was gone (4096 x
           4096 float32 on the Zen 3: 2.2-2.4x a copy that way, 1.33x this way; 4095 x 4097: 1.45-1.64x,
           1.10-1.19x; one thread, CPU time) */
#if defined(TIO_AVX)
        if (level >= 2 && isz == 4) /* (one call: a call per group measured 1.56-1.62x for 4096 x 4096) */
            tio_block32_avx_rows((uint32_t *)(buf + TIO_TR_LEAD), line / 4, (const uint32_t *)(s + j0 * ssa),
                                 ssa / 4, ni, nj);
        else
#endif
            for (int64_t g = 0; g < nj; g += TIO_TR_GROUP(isz)) {
                int64_t ng = nj - g < TIO_TR_GROUP(isz) ? nj - g : TIO_TR_GROUP(isz);
                tio_block(buf + TIO_TR_LEAD + g * isz, line, s + (j0 + g) * ssa, ssa, ni, ng, isz, level);
            }
        for (int64_t i = 0; i < ni; i++) {
            char *at = d + i * dsb + j0 * isz;
            const char *from = buf + i * line + TIO_TR_LEAD;
            int64_t n = nj * isz;
            if (!nt) {
                memcpy(at, from, (size_t)n);
                continue;
            }
            if (j0 > 0) { /* the waiting bytes first: from the line's start */
                int64_t wait = (int64_t)((uintptr_t)at & 63);
                at -= wait, from -= wait, n += wait;
            } else { /* up to the row's first line boundary (n >= 64 here unless last) */
                int64_t head = (int64_t)(-(uintptr_t)at & 63);
                head = head < n ? head : n;
                memcpy(at, from, (size_t)head);
                at += head, from += head, n -= head;
            }
            for (; n >= 64; n -= 64, at += 64, from += 64)
                tio_stream_line(at, from);
            if (last)
                memcpy(at, from, (size_t)n);
            else /* the last 64 bytes of the block's row (>= 64: apart), so the n < 64 waiting ones are
                    the buffer row's last before TIO_TR_LEAD (a fixed size: inline moves, no call) */
                memcpy(buf + i * line + TIO_TR_LEAD - 64, from + n - 64, 64);
        }
    }
}
#endif

/* ---- the job ------------------------------------------------------------------------------------- */

static void tio_copy_range(void *ctx, int64_t lo, int64_t hi)
{
    const tio_cjob *job = (const tio_cjob *)ctx;
    int64_t isz = job->isz;
#if defined(TIO_TR_BUFFERED)
    uint64_t buf[TIO_TR_BUF / 8]; /* (transposes only: 80 KiB) */
#endif
    tio_cursor cur;
    tio_cursor_start(&job->walk, lo, job->pieces, &cur);
    for (int64_t item = lo; item < hi; item++, tio_cursor_next(&job->walk, job->pieces, &cur)) {
        int64_t piece = cur.piece;
        char *d = job->dst + cur.a;
        const char *s = job->src + cur.b;
        switch (job->kind) {
        case TIO_ROWS: {
            int64_t bytes = job->na * isz, start = piece * TIO_ROW_CHUNK;
            int64_t count = bytes - start < TIO_ROW_CHUNK ? bytes - start : TIO_ROW_CHUNK;
            memcpy(d + start, s + start, (size_t)count);
            break;
        }
        case TIO_DEINTERLEAVE: {
            int64_t start = piece * TIO_LANE_CHUNK;
            int64_t count = job->na - start < TIO_LANE_CHUNK ? job->na - start : TIO_LANE_CHUNK;
#if defined(TIO_X512) && defined(TIO_X512_DEINT)
            /* VBMI byte permutes (avx512.c): off unless built with -DTIO_X512_DEINT (the SIMDe build is,
               so they stay verified); on the Intel Xeon (Sapphire Rapids class, 2 vCPU) GCC's AVX2 clone of
               the plain loop was faster: permute HWC -> CHW 1080p, one thread, 1.06-1.08x a copy against
               1.28-1.31x (256-bit permutes; 512-bit: 1.17-1.57x), pack HWC 1080p 1.15x against 1.31x */
            if (isz == 1 && job->level >= 3) {
                tio_x512_deint_u8(d + start, job->dsb, s + start * job->ssa, count, (int)job->nb);
                break;
            }
#endif
            tio_deints[tio_log2_size(isz)][job->nb - 2](d + start * isz, job->dsb, s + start * job->ssa, count);
            break;
        }
        case TIO_INTERLEAVE: {
            int64_t start = piece * TIO_LANE_CHUNK; /* along b */
            int64_t count = job->nb - start < TIO_LANE_CHUNK ? job->nb - start : TIO_LANE_CHUNK;
            tio_ints[tio_log2_size(isz)][job->na - 2](d + start * job->dsb, s + start * isz, job->ssa, count);
            break;
        }
        case TIO_TRANSPOSE: {
            int64_t i0 = piece * job->strip;
            int64_t ni = job->nb - i0 < job->strip ? job->nb - i0 : job->strip;
#if defined(TIO_TR_BUFFERED)
            if (job->buffered) {
                tio_tr_strip(d + i0 * job->dsb, job->dsb, s + i0 * isz, job->ssa, ni, job->na, isz, job->level,
                             job->nt, TIO_TR_COLS(isz, job->cols), (char *)buf);
                break;
            }
#endif
            const int64_t tile = TIO_TILE_A(isz);
            for (int64_t j0 = 0; j0 < job->na; j0 += tile) {
                int64_t nj = job->na - j0 < tile ? job->na - j0 : tile;
                tio_block(d + i0 * job->dsb + j0 * isz, job->dsb, s + i0 * isz + j0 * job->ssa, job->ssa, ni, nj,
                          isz, job->level);
            }
            break;
        }
        default:
            tio_strided(d, job->dsa, s, job->ssa, job->na, isz);
        }
    }
#if defined(TIO_TR_BUFFERED)
    if (job->nt)
        _mm_sfence(); /* the non-temporal stores are visible before this part is reported done */
#endif
}

static int64_t tio_abs(int64_t x) { return x < 0 ? -x : x; }

int tio_copy(void *dst, const void *src, int64_t itemsize, int ndim, const int64_t *shape,
             const int64_t *dst_strides, const int64_t *src_strides, int threads)
{
    if (ndim < 1 || ndim > TIO_MAXDIM || itemsize < 1)
        return -1;
    tio_cjob job;
    memset(&job, 0, sizeof job);
    job.dst = (char *)dst;
    job.src = (const char *)src;
    job.isz = itemsize;
    int a = ndim - 1, b = -1;
    job.na = shape[a];
    job.dsa = dst_strides[a];
    job.ssa = src_strides[a];
    for (int k = 0; k < a; k++)
        if (b < 0 || tio_abs(src_strides[k]) < tio_abs(src_strides[b]))
            b = k;
    int64_t total = 1;
    for (int k = 0; k < ndim; k++)
        total *= shape[k];
    int lg = tio_log2_size(itemsize);
    int aligned = lg >= 0 && ((uintptr_t)dst | (uintptr_t)src) % (uintptr_t)itemsize == 0;
    job.kind = TIO_GENERAL;
    job.level = tio_isa_level(); /* chosen by the calling thread, before any worker starts */
    if (job.dsa == itemsize && job.ssa == itemsize) {
        job.kind = TIO_ROWS;
    } else if (b >= 0 && src_strides[b] == itemsize && job.dsa == itemsize && aligned
               && dst_strides[b] % itemsize == 0 && job.ssa % itemsize == 0) {
        job.nb = shape[b];
        job.dsb = dst_strides[b];
        job.ssb = src_strides[b];
        if (job.nb >= 2 && job.nb <= 4 && job.ssa == job.nb * itemsize)
            job.kind = TIO_DEINTERLEAVE;
        else if (job.na >= 2 && job.na <= 4 && job.dsb == job.na * itemsize)
            job.kind = TIO_INTERLEAVE;
        else if (job.ssa > 0)
            job.kind = TIO_TRANSPOSE;
    }
    /* the outer walk: every axis but a (and b for the plane kernels) */
    int plane = job.kind == TIO_DEINTERLEAVE || job.kind == TIO_INTERLEAVE || job.kind == TIO_TRANSPOSE;
    job.walk.ndim = 0;
    for (int k = 0; k < a; k++) {
        if (plane && k == b)
            continue;
        job.walk.shape[job.walk.ndim] = shape[k];
        job.walk.a_strides[job.walk.ndim] = dst_strides[k];
        job.walk.b_strides[job.walk.ndim] = src_strides[k];
        job.walk.ndim++;
    }
    if (job.kind == TIO_DEINTERLEAVE) {
        /* outer axes in source order: the source streams through once (reorg: ph inside c, h) */
        for (int i = 1; i < job.walk.ndim; i++)
            for (int k = i; k > 0 && tio_abs(job.walk.b_strides[k]) > tio_abs(job.walk.b_strides[k - 1]); k--) {
                int64_t t = job.walk.shape[k];
                job.walk.shape[k] = job.walk.shape[k - 1];
                job.walk.shape[k - 1] = t;
                t = job.walk.a_strides[k];
                job.walk.a_strides[k] = job.walk.a_strides[k - 1];
                job.walk.a_strides[k - 1] = t;
                t = job.walk.b_strides[k];
                job.walk.b_strides[k] = job.walk.b_strides[k - 1];
                job.walk.b_strides[k - 1] = t;
            }
    }
    switch (job.kind) {
    case TIO_ROWS: job.pieces = (job.na * itemsize + TIO_ROW_CHUNK - 1) / TIO_ROW_CHUNK; break;
    case TIO_DEINTERLEAVE: job.pieces = (job.na + TIO_LANE_CHUNK - 1) / TIO_LANE_CHUNK; break;
    case TIO_INTERLEAVE: job.pieces = (job.nb + TIO_LANE_CHUNK - 1) / TIO_LANE_CHUNK; break;
    case TIO_TRANSPOSE:
        /* a strip of b: whole cache lines of each source row */
        job.strip = TIO_STRIP_BYTES / itemsize > 4 ? TIO_STRIP_BYTES / itemsize : 4;
#if defined(TIO_TR_BUFFERED)
        /* (destination rows of up to 512 bytes, e.g. NCHW -> NHWC of 64 channels, keep the direct tiles:
           a strip's rows then span a few hundred KiB that stay in L2 between the tiles' passes, and the
           buffer's copy per row cost more than it saved: NCHW -> NHWC [8, 64, 208, 208] uint8 1.4-1.6x a
           copy through the buffer, 1.0-1.5x direct; float32 1.8-2.1x against 1.1-1.8x) */
        job.buffered = job.na * itemsize > 512;
        if (job.buffered) {
            job.strip = TIO_TR_ROWS(itemsize);
            job.cols = tio_tr_cols();
            job.nt = job.level >= 1 && total * itemsize >= tio_nt_min();
        }
#endif
        job.pieces = (job.nb + job.strip - 1) / job.strip;
        break;
    default: job.pieces = 1;
    }
    int64_t outer = 1;
    for (int k = 0; k < job.walk.ndim; k++)
        outer *= job.walk.shape[k];
    /* plain moves whose bytes fit in the last-level cache: one thread (cpu.c's split_min says why) */
    if ((job.kind == TIO_ROWS || job.kind == TIO_DEINTERLEAVE || job.kind == TIO_INTERLEAVE)
        && 2 * total * itemsize <= tio_split_min())
        threads = 1;
    tio_parallel(tio_copy_range, &job, outer * job.pieces, threads, 2 * total * itemsize);
    return 0;
}

/* ---- in-place square transpose ------------------------------------------------------------------ */

/* Blocks of tio_sq_tile(cell) x tio_sq_tile(cell) cells (both blocks of a swap in L1d, chosen at load
 * time, cpu.c; 64 with 32 KiB and four-byte cells), swapped in units of a cache line's cells squared
 * (tio_line_size(), cpu.c: 16 x 16 four-byte cells with 64-byte lines), unit by unit, where the rows
 * are whole lines apart: the blocks' and the units' bounds are then on the line bounds of the
 * matrix's first row (NumPy's large arrays start 16 bytes past a page), so that a unit pair covers
 * whole lines on both sides and is done with them before the next unit's lines come. With AVX2 a
 * whole four-byte unit goes through a buffer (tio_sq_lines32_avx says why). Before, the blocks started
 * at cell 0 and each 8 x 8 register tile of a swap went down all of the block's rows of its other side
 * before that side's lines were read again: 32 bytes of a line, then the rest 64 rows later; with a
 * power-of-two row pitch those rows share one L1 set (and a few L2 sets), and the line had to come
 * again from L3 or memory. Rows off the line bounds keep that order (units of a block). */
typedef struct {
    char *data;
    int64_t cell, batch, n, tiles, tile, unit;
    int64_t line; /* the unit's bytes, or 0 where rows are off the line bounds (then unit = tile) */
    int level;
} tio_sqjob;

static inline void tio_swap_cells(char *x, char *y, int64_t cell)
{
    switch (cell) {
    case 1: { uint8_t t = *(uint8_t *)x; *(uint8_t *)x = *(uint8_t *)y; *(uint8_t *)y = t; return; }
    case 2: { uint16_t t; memcpy(&t, x, 2); memcpy(x, y, 2); memcpy(y, &t, 2); return; }
    case 4: { uint32_t t; memcpy(&t, x, 4); memcpy(x, y, 4); memcpy(y, &t, 4); return; }
    case 8: { uint64_t t; memcpy(&t, x, 8); memcpy(x, y, 8); memcpy(y, &t, 8); return; }
    default:
        for (int64_t k = 0; k < cell; k++) {
            char t = x[k];
            x[k] = y[k];
            y[k] = t;
        }
    }
}

#if defined(TIO_AVX)
/* tio_sq_pair for four-byte cells with 8 x 8 register tiles: each pair of tiles is loaded, both are
 * transposed in registers and stored crosswise; a tile on the diagonal is transposed onto itself. */
TIO_AVX_FN static void tio_sq_pair32_avx(uint32_t *m, int64_t n, int64_t r0, int64_t c0, int64_t nr, int64_t nc,
                                         int diag)
{
    int64_t i = 0, nc8 = nc - nc % 8;
    for (; i + 8 <= nr; i += 8) {
        for (int64_t j = diag ? i : 0; j < nc8; j += 8) {
            uint32_t *px = m + (r0 + i) * n + (c0 + j), *py = m + (c0 + j) * n + (r0 + i);
            __m256 x[8], y[8];
            for (int k = 0; k < 8; k++)
                x[k] = _mm256_loadu_ps((const float *)(px + k * n));
            tio_tr8_regs(x);
            if (px == py) {
                for (int k = 0; k < 8; k++)
                    _mm256_storeu_ps((float *)(px + k * n), x[k]);
                continue;
            }
            for (int k = 0; k < 8; k++)
                y[k] = _mm256_loadu_ps((const float *)(py + k * n));
            tio_tr8_regs(y);
            for (int k = 0; k < 8; k++) {
                _mm256_storeu_ps((float *)(py + k * n), x[k]);
                _mm256_storeu_ps((float *)(px + k * n), y[k]);
            }
        }
        for (int64_t j = nc8; j < nc; j++)
            for (int64_t k = i; k < i + 8; k++) {
                uint32_t *x = m + (r0 + k) * n + (c0 + j), *y = m + (c0 + j) * n + (r0 + k), t = *x;
                *x = *y;
                *y = t;
            }
    }
    for (; i < nr; i++)
        for (int64_t j = diag ? i + 1 : 0; j < nc; j++) {
            uint32_t *x = m + (r0 + i) * n + (c0 + j), *y = m + (c0 + j) * n + (r0 + i), t = *x;
            *x = *y;
            *y = t;
        }
}
#endif

#if defined(TIO_AVX)
/* One whole unit pair of four-byte cells, 16 x 16, on 64-byte lines (tio_sq_pair): unit x at rows r0..,
 * columns c0.. and its mirror y at rows c0.., columns r0... y's 16 lines are first copied whole into a
 * buffer; x is read in 8 x 8 register tiles, a line's two halves one after the other; both transposed
 * units are then stored a whole line at a time. With a row pitch of a multiple of 4 KiB the 16 lines of
 * a side share one L1 set (8 ways): read as 8 x 8 tiles straight from both sides, half of a side's
 * lines were gone before their second halves were read (4096 x 4096 float32 on the Zen 3, one thread,
 * CPU time / np.copyto's, ten runs: 1.56-2.63x that way, 1.42-2.04x this way, 1.66-1.99x before the
 * units). (Non-temporal stores of the lines: 3.6-4.1x.) On the diagonal (r0 == c0) the unit is
 * transposed onto itself. */
TIO_AVX_FN static void tio_sq_lines32_avx(uint32_t *m, int64_t n, int64_t r0, int64_t c0)
{
    uint32_t *px = m + r0 * n + c0, *py = m + c0 * n + r0;
    int diag = r0 == c0;
    float yin[256] __attribute__((aligned(32))), xout[256] __attribute__((aligned(32)));
    float yout[256] __attribute__((aligned(32)));
    if (!diag)
        for (int k = 0; k < 16; k++) {
            __m256 lo = _mm256_load_ps((const float *)(py + k * n)), hi = _mm256_load_ps((const float *)(py + k * n + 8));
            _mm256_store_ps(yin + 16 * k, lo);
            _mm256_store_ps(yin + 16 * k + 8, hi);
        }
    for (int ti = 0; ti < 16; ti += 8)
        for (int tj = 0; tj < 16; tj += 8) {
            __m256 r[8];
            for (int k = 0; k < 8; k++) /* x rows ti.., columns tj.. -> y rows tj.., columns ti.. */
                r[k] = _mm256_load_ps((const float *)(px + (ti + k) * n + tj));
            tio_tr8_regs(r);
            for (int k = 0; k < 8; k++)
                _mm256_store_ps(yout + 16 * (tj + k) + ti, r[k]);
            if (diag)
                continue;
            for (int k = 0; k < 8; k++) /* y rows tj.., columns ti.. -> x rows ti.., columns tj.. */
                r[k] = _mm256_load_ps(yin + 16 * (tj + k) + ti);
            tio_tr8_regs(r);
            for (int k = 0; k < 8; k++)
                _mm256_store_ps(xout + 16 * (ti + k) + tj, r[k]);
        }
    for (int side = diag; side < 2; side++) {
        uint32_t *at = side ? py : px;
        const float *from = side ? yout : xout;
        for (int k = 0; k < 16; k++) {
            _mm256_store_ps((float *)(at + k * n), _mm256_load_ps(from + 16 * k));
            _mm256_store_ps((float *)(at + k * n + 8), _mm256_load_ps(from + 16 * k + 8));
        }
    }
}
#endif

/* One- and two-byte cells: a unit pair of at most TIO_SQ_SMALL x TIO_SQ_SMALL cells (a 64-byte line's
 * cells squared, or a piece of a block off the line bounds) through a buffer, on every ISA level: y's
 * rows are copied into the buffer, x is transposed onto y, then the buffer onto x, both by tio_block
 * (the register tiles of the level: 16 x 16 bytes, 8 x 8 two-byte cells; plain loops at level 0). Before,
 * these cells were swapped one pair at a time (4096^2 uint8: 24.9x a copy, int16: 6.9x). */
#define TIO_SQ_SMALL 64
static void tio_sq_small(char *m, int64_t n, int64_t cell, int64_t r0, int64_t c0, int64_t nr, int64_t nc,
                         int level)
{
    uint64_t buf[TIO_SQ_SMALL * TIO_SQ_SMALL * 2 / 8];
    int64_t row = n * cell;
    char *px = m + r0 * row + c0 * cell, *py = m + c0 * row + r0 * cell, *b = (char *)buf;
    if (r0 == c0) { /* (nr == nc) the diagonal unit onto itself */
        for (int64_t i = 0; i < nr; i++)
            memcpy(b + i * nr * cell, px + i * row, (size_t)(nr * cell));
        tio_block(px, row, b, nr * cell, nr, nr, cell, level);
        return;
    }
    for (int64_t j = 0; j < nc; j++) /* y: nc rows of nr cells */
        memcpy(b + j * nr * cell, py + j * row, (size_t)(nr * cell));
    tio_block(py, row, px, row, nc, nr, cell, level);        /* y[j][i] = x[i][j] */
    tio_block(px, row, b, nr * cell, nr, nc, cell, level);  /* x[i][j] = old y[j][i] */
}

/* Swap unit (r0.., c0..) with the transpose of unit (c0.., r0..), nr x nc cells; on the diagonal
 * (r0 == c0) only the upper triangle is swapped. */
static void tio_sq_unit(char *m, int64_t n, int64_t cell, int64_t r0, int64_t c0, int64_t nr, int64_t nc,
                        int level)
{
    int64_t row = n * cell;
    int diag = r0 == c0;
    (void)level;
    if (cell == 1 || cell == 2) { /* in pieces of at most TIO_SQ_SMALL (on the diagonal: the upper ones) */
        for (int64_t i = 0; i < nr; i += TIO_SQ_SMALL)
            for (int64_t j = diag ? i : 0; j < nc; j += TIO_SQ_SMALL)
                tio_sq_small(m, n, cell, r0 + i, c0 + j, nr - i < TIO_SQ_SMALL ? nr - i : TIO_SQ_SMALL,
                             nc - j < TIO_SQ_SMALL ? nc - j : TIO_SQ_SMALL, level);
        return;
    }
#if defined(TIO_AVX)
    if (level >= 2 && cell == 4) {
        tio_sq_pair32_avx((uint32_t *)m, n, r0, c0, nr, nc, diag);
        return;
    }
#endif
    int64_t i = 0;
#if TIO_HAVE_TR32
    if (cell == 4 && !diag && level >= 1) {
        uint32_t *base = (uint32_t *)m;
        for (; i + 4 <= nr; i += 4) {
            int64_t j = 0;
            for (; j + 4 <= nc; j += 4) {
                uint32_t x[16], y[16];
                uint32_t *px = base + (r0 + i) * n + (c0 + j), *py = base + (c0 + j) * n + (r0 + i);
                tio_tr4_32(x, 4, px, n);
                tio_tr4_32(y, 4, py, n);
                for (int k = 0; k < 4; k++) {
                    memcpy(py + k * n, x + 4 * k, 16);
                    memcpy(px + k * n, y + 4 * k, 16);
                }
            }
            for (; j < nc; j++)
                for (int64_t k = i; k < i + 4; k++)
                    tio_swap_cells(m + (r0 + k) * row + (c0 + j) * cell, m + (c0 + j) * row + (r0 + k) * cell, cell);
        }
    }
#endif
    for (; i < nr; i++)
        for (int64_t j = diag ? i + 1 : 0; j < nc; j++)
            tio_swap_cells(m + (r0 + i) * row + (c0 + j) * cell, m + (c0 + j) * row + (r0 + i) * cell, cell);
}

/* The first line bound of matrix m's rows, in cells from its first column (0 without whole-line
 * units, line 0, or where the cells do not divide the lines) */
static int64_t tio_sq_offset(const char *m, int64_t cell, int64_t line, int64_t n)
{
    if (line <= 0)
        return 0;
    int64_t gap = (line - (int64_t)((uintptr_t)m % (uint64_t)line)) % line;
    int64_t off = gap % cell == 0 ? gap / cell : 0;
    return off < n ? off : 0;
}

/* the bound after cell i of a grid of `step` cells starting at off (a first piece of off cells before it) */
static inline int64_t tio_sq_next(int64_t i, int64_t off, int64_t step)
{
    return i < off ? off : off + ((i - off) / step + 1) * step;
}

/* Swap block rows r0..r0+nr-1 / columns c0..c0+nc-1 with its mirror, unit by unit (units on the grid
 * of `unit` cells from off); on the diagonal (r0 == c0) the units of the upper triangle. */
static void tio_sq_pair(char *m, int64_t n, int64_t cell, int64_t r0, int64_t c0, int64_t nr, int64_t nc,
                        int level, int64_t unit, int64_t off, int lines)
{
    int diag = r0 == c0;
    int64_t r1 = r0 + nr, c1 = c0 + nc, cfirst = tio_sq_next(c0, off, unit);
    (void)lines;
    for (int64_t i = r0, i1 = tio_sq_next(r0, off, unit); i < r1; i = i1, i1 += unit) {
        int64_t ie = i1 < r1 ? i1 : r1;
        for (int64_t j = diag ? i : c0, j1 = diag ? i1 : cfirst; j < c1; j = j1, j1 += unit) {
            int64_t je = j1 < c1 ? j1 : c1;
#if defined(TIO_AVX)
            if (lines && ie - i == 16 && je - j == 16) {
                tio_sq_lines32_avx((uint32_t *)m, n, i, j);
                continue;
            }
#endif
            tio_sq_unit(m, n, cell, i, j, ie - i, je - j, level);
        }
    }
}

static void tio_square_range(void *ctx, int64_t lo, int64_t hi)
{
    const tio_sqjob *job = (const tio_sqjob *)ctx;
    int64_t t = job->tiles, n = job->n, tile = job->tile;
    for (int64_t item = lo; item < hi; item++) {
        int64_t bi = item / t, k = item % t;
        /* alternate short and long tile rows so that halves of the range carry equal work */
        int64_t ti = (k % 2 == 0) ? k / 2 : t - 1 - k / 2;
        char *m = job->data + bi * n * n * job->cell;
        int64_t off = tio_sq_offset(m, job->cell, job->line, n);
        /* whole units of four-byte cells on 64-byte lines, AVX2: tio_sq_lines32_avx */
        int lines = job->level >= 2 && job->cell == 4 && job->line == 64 && (uintptr_t)(m + off * 4) % 64 == 0;
        /* block k: cells [k == 0 ? 0 : off + (k - 1) * tile, ...) when off > 0, else [k * tile, ...) */
        int64_t r0 = ti == 0 ? 0 : off + (ti - (off > 0)) * tile, r1 = off + (ti + (off == 0)) * tile;
        r1 = r1 < n ? r1 : n;
        if (r0 >= n)
            continue;
        for (int64_t c0 = r0, c1; c0 < n; c0 = c1) {
            c1 = tio_sq_next(c0, off, tile);
            c1 = c1 < n ? c1 : n;
            tio_sq_pair(m, n, job->cell, r0, c0, r1 - r0, c1 - c0, job->level, job->unit, off, lines);
        }
    }
}

int tio_square_inplace(void *data, int64_t cell_bytes, int64_t batch, int64_t n, int threads)
{
    if (cell_bytes < 1 || batch < 0 || n < 0)
        return -1;
    int64_t tile = tio_sq_tile(cell_bytes), line = tio_line_size(), unit = line / cell_bytes;
    if (unit >= 1 && unit <= tile && line % cell_bytes == 0 && n * cell_bytes % line == 0) {
        tile -= tile % unit; /* (whole units per block) */
    } else { /* (rows off the line bounds: no whole lines to keep together, nor rows in one L1 set) */
        unit = tile;
        line = 0;
    }
    /* (one block more than n / tile: the first may be a piece up to the first line bound) */
    tio_sqjob job = {(char *)data, cell_bytes, batch, n, n / tile + 1 + (n % tile != 0), tile, unit, line,
                     tio_isa_level()};
    tio_parallel(tio_square_range, &job, batch * job.tiles, threads, 2 * batch * n * n * cell_bytes);
    return 0;
}
