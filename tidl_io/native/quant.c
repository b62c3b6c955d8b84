/* Fused quantization (float -> codes) and dequantization (codes -> float32) over strided N-d arrays.
 *
 * Quantize, exactly as tidl_io.quant does it in NumPy: t = x * scale + zero_point in the compute type
 * (float32, or float64 for float64 sources and 32-bit codes), two roundings (the build passes
 * -ffp-contract=off so no fused multiply-add), NaN -> zero_point (counted: the caller raises for
 * nan="error"), rint (half to even) for "nearest", clamp to the code range, then the C cast
 * truncates toward zero. Clamping before rounding gives the same codes: the bounds are integers.
 *
 * Dequantize: float32((q - zero_point) / scale) as the float32 division computes it, without the
 * divider, in one of four ways (tio_dequantize_kind picks the cheapest that applies):
 *   pow2    a power-of-two scale: the float32 difference times the exact float32 1/scale;
 *   fma     codes within 2**16 of the zero point, 2**-100 <= scale < 2**101, and an FMA unit: the
 *           float32 product and one FMA correction (tio_div_by_inverse, proven equal to the
 *           division by tools/prove_dequantize.c);
 *   narrow  the difference (exact in int32) times 1/scale in float64, rounded once to float32;
 *   wide    32-bit codes: the difference in float64, rounded once to float32 (as NumPy does), then
 *           the same float64 product.
 * For |q - zp| < 2**24 (and any float32 difference) the float64 product lies within 2**-52 of the
 * true quotient, while a float32 rounding boundary that is not hit exactly is at least 2**-49 away
 * (the quotient of a 24-bit and a 24-bit number), so both round the same way; tests/test_native.py
 * checks every kind over every 8-bit code and many scales.
 */
#include "tidl_io_native.h"

#include <float.h>
#include <math.h>
#include <string.h>

#define TIO_CHUNK ((int64_t)1 << 15) /* elements per work item: rows longer than this are split */

typedef struct {
    double scale, zero_point, lo, hi;
} tio_qp;

/* the range of the 8- and 16-bit code types (TIO_U8 .. TIO_I16) */
static const int64_t tio_code_lo[4] = {0, -128, 0, -32768}, tio_code_hi[4] = {255, 127, 65535, 32767};

/* A run of `rows` rows of `n` elements, rows `drs` / `srs` bytes apart (one call per run: the setup,
 * ~40 instructions, costs as much as a short row, and padded image rows are 200-odd elements). */
typedef int64_t (*tio_qrow)(char *restrict dst, const char *restrict src, int64_t n, int64_t ds, int64_t ss,
                            int64_t rows, int64_t drs, int64_t srs, const tio_qp *p);

#define TIO_ROUND_trunc(CT, t) (t)
#define TIO_ROUND_nearest(CT, t) ((sizeof(CT) == 4) ? (CT)rintf((float)(t)) : (CT)rint((double)(t)))

/* One quantize element: NaN -> zero point, round, clamp; `bad` is 1 for NaN. */
#define TIO_QBODY(ST, DT, IT, CT, RND, nans, load, store)                                                  \
    {                                                                                                      \
        CT t = (CT)(load);                                                                                 \
        t = t * scale;                                                                                     \
        t = t + zp;                                                                                        \
        int bad = t != t;                                                                                  \
        nans += bad;                                                                                       \
        t = bad ? zp : t;                                                                                  \
        t = TIO_ROUND_##RND(CT, t);                                                                        \
        t = t > lo ? t : lo;                                                                               \
        t = t < hi ? t : hi;                                                                               \
        store = (DT)(IT)t;                                                                                 \
    }

#define TIO_QROW(NAME, ST, DT, IT, CT, RND)                                                                \
    TIO_CLONES static int64_t NAME(char *restrict dst, const char *restrict src, int64_t n, int64_t ds,    \
                                   int64_t ss, int64_t rows, int64_t drs, int64_t srs, const tio_qp *p)   \
    {                                                                                                      \
        const CT scale = (CT)p->scale, zp = (CT)p->zero_point, lo = (CT)p->lo, hi = (CT)p->hi;            \
        int64_t nans = 0;                                                                                  \
        if (ds == (int64_t)sizeof(DT) && ss == (int64_t)sizeof(ST)) {                                      \
            for (int64_t r = 0; r < rows; r++) {                                                           \
                DT *restrict d = (DT *)(dst + r * drs);                                                    \
                const ST *restrict s = (const ST *)(src + r * srs);                                        \
                int32_t row_nans = 0; /* (an int32 count keeps the vector loop narrow) */                  \
                for (int64_t i = 0; i < n; i++)                                                            \
                    TIO_QBODY(ST, DT, IT, CT, RND, row_nans, s[i], d[i])                                   \
                nans += row_nans;                                                                          \
            }                                                                                              \
        } else {                                                                                           \
            for (int64_t r = 0; r < rows; r++) {                                                           \
                char *d = dst + r * drs;                                                                   \
                const char *s = src + r * srs;                                                             \
                int32_t row_nans = 0;                                                                      \
                for (int64_t i = 0; i < n; i++)                                                            \
                    TIO_QBODY(ST, DT, IT, CT, RND, row_nans, *(const ST *)(s + i * ss), *(DT *)(d + i * ds)) \
                nans += row_nans;                                                                          \
            }                                                                                              \
        }                                                                                                  \
        return nans;                                                                                       \
    }

#define TIO_QROWS(RND)                                                                                     \
    TIO_QROW(q_f32_u8_##RND, float, uint8_t, int32_t, float, RND)                                          \
    TIO_QROW(q_f32_i8_##RND, float, int8_t, int32_t, float, RND)                                           \
    TIO_QROW(q_f32_u16_##RND, float, uint16_t, int32_t, float, RND)                                        \
    TIO_QROW(q_f32_i16_##RND, float, int16_t, int32_t, float, RND)                                         \
    TIO_QROW(q_f32_u32_##RND, float, uint32_t, int64_t, double, RND)                                       \
    TIO_QROW(q_f32_i32_##RND, float, int32_t, int32_t, double, RND)                                        \
    TIO_QROW(q_f64_u8_##RND, double, uint8_t, int32_t, double, RND)                                        \
    TIO_QROW(q_f64_i8_##RND, double, int8_t, int32_t, double, RND)                                         \
    TIO_QROW(q_f64_u16_##RND, double, uint16_t, int32_t, double, RND)                                      \
    TIO_QROW(q_f64_i16_##RND, double, int16_t, int32_t, double, RND)                                       \
    TIO_QROW(q_f64_u32_##RND, double, uint32_t, int64_t, double, RND)                                      \
    TIO_QROW(q_f64_i32_##RND, double, int32_t, int32_t, double, RND)

TIO_QROWS(trunc)
TIO_QROWS(nearest)

/* Vector rows for float32 -> 8- and 16-bit codes (AVX2, picked at run time on x86-64; NEON on aarch64).
 * What gcc makes of TIO_QBODY costs ~48 AVX2 instructions per 32 codes (NaN blend and count, two
 * clamps, masks before the packs); these take ~29: the conversion truncates (or rounds half to even)
 * and the saturating narrowing clamps to the code type, which are the bounds quantize is given
 * (checked at dispatch). NEON's conversions saturate by themselves; AVX2's cvttps2dq makes NaN and
 * anything beyond the int32 range INT32_MIN, which a running int32 minimum of the row's codes keeps
 * (under one instruction per vector: the upper clamp and the compare-and-OR for NaN it replaced took a
 * 1x3x224x224 float32 -> uint8 frame from ~11 to ~15 us on an Intel Xeon). NaN is only detected (NEON:
 * one AND per vector): a row that has any (AVX2: or a value beyond the int32 range) is redone by the
 * portable row, which writes the zero point, counts and clamps. The row's
 * last partial vector is done by an overlapping full one (elementwise, dst and src apart: rewriting a
 * code is harmless: callers never pass an output that overlaps its input, tidl_io/native checks);
 * rows shorter than a vector go to the portable row. "nearest" rounds half to even whatever the
 * current rounding mode (the portable row's rintf follows the mode; the library never changes it).
 *
 * The skeleton: SETUP declares the constants, NAN_RESET starts a row, STEP(RND) converts and stores W
 * codes at d + i from s + i, NAN_SEEN is true when the row had a NaN. */
#define TIO_QROW_VEC(NAME, DT, RND, W, ATTR, SETUP, NAN_RESET, STEP, NAN_SEEN, PORTABLE)                   \
    ATTR static int64_t NAME(char *restrict dst, const char *restrict src, int64_t n, int64_t ds,          \
                             int64_t ss, int64_t rows, int64_t drs, int64_t srs, const tio_qp *p)          \
    {                                                                                                      \
        if (n < (W) || ds != (int64_t)sizeof(DT) || ss != 4)                                               \
            return PORTABLE(dst, src, n, ds, ss, rows, drs, srs, p);                                       \
        SETUP                                                                                              \
        int64_t nans = 0;                                                                                  \
        for (int64_t r = 0; r < rows; r++) {                                                               \
            DT *d = (DT *)(dst + r * drs);                                                                 \
            const float *s = (const float *)(src + r * srs);                                               \
            NAN_RESET                                                                                      \
            int64_t i = 0;                                                                                 \
            for (; i + (W) <= n; i += (W))                                                                 \
                STEP(RND)                                                                                  \
            if (i < n) {                                                                                   \
                i = n - (W);                                                                               \
                STEP(RND)                                                                                  \
            }                                                                                              \
            if (NAN_SEEN)                                                                                  \
                nans += PORTABLE((char *)d, (const char *)s, n, ds, ss, 1, 0, 0, p);                       \
        }                                                                                                  \
        return nans;                                                                                       \
    }
#define TIO_QROWS_VEC(RND)                                                                                 \
    TIO_QROW_VEC(qv_f32_u8_##RND, uint8_t, RND, TIO_QV_W8, TIO_QV_ATTR, TIO_QV_SETUP, TIO_QV_NAN_RESET,    \
                 TIO_QV_STEP_u8, TIO_QV_NAN_SEEN, q_f32_u8_##RND)                                          \
    TIO_QROW_VEC(qv_f32_i8_##RND, int8_t, RND, TIO_QV_W8, TIO_QV_ATTR, TIO_QV_SETUP, TIO_QV_NAN_RESET,     \
                 TIO_QV_STEP_i8, TIO_QV_NAN_SEEN, q_f32_i8_##RND)                                          \
    TIO_QROW_VEC(qv_f32_u16_##RND, uint16_t, RND, TIO_QV_W16, TIO_QV_ATTR, TIO_QV_SETUP, TIO_QV_NAN_RESET, \
                 TIO_QV_STEP_u16, TIO_QV_NAN_SEEN, q_f32_u16_##RND)                                        \
    TIO_QROW_VEC(qv_f32_i16_##RND, int16_t, RND, TIO_QV_W16, TIO_QV_ATTR, TIO_QV_SETUP, TIO_QV_NAN_RESET,  \
                 TIO_QV_STEP_i16, TIO_QV_NAN_SEEN, q_f32_i16_##RND)

#if defined(TIO_X86_DISPATCH)
#include <immintrin.h>
#define TIO_QVEC 1
#define TIO_QV_ATTR __attribute__((target("avx2")))
#define TIO_QV_W8 32
#define TIO_QV_W16 16
#define TIO_QV_SETUP                                                                                       \
    const __m256 vs = _mm256_set1_ps((float)p->scale), vz = _mm256_set1_ps((float)p->zero_point);
/* NaN and anything beyond the int32 range convert to INT32_MIN: the row's least int32 code tells */
#define TIO_QV_NAN_RESET __m256i low = _mm256_set1_epi32(INT32_MAX); __m256 t;
#define TIO_QV_NAN_SEEN tio_qv_int_min_seen(low)
#define TIO_QV_ROUND_trunc(t) (t)
#define TIO_QV_ROUND_nearest(t) _mm256_round_ps((t), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
TIO_QV_ATTR static inline int tio_qv_int_min_seen(__m256i low)
{
    __m256i at = _mm256_cmpeq_epi32(low, _mm256_set1_epi32(INT32_MIN));
    return !_mm256_testz_si256(at, at);
}
/* 8 codes as int32 (k-th 8 of the step) */
#define TIO_QV_CODES(RND, k)                                                                               \
    (t = _mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(s + i + 8 * (k)), vs), vz),                          \
     _mm256_cvttps_epi32(TIO_QV_ROUND_##RND(t)))
/* 32 one-byte codes: packs work in 128-bit lanes and leave 4-code groups in the order 0 2 4 6 1 3 5 7 */
#define TIO_QV_STEP8(RND, PACK32, PACK16)                                                                  \
    {                                                                                                      \
        __m256i a = TIO_QV_CODES(RND, 0), b = TIO_QV_CODES(RND, 1), c = TIO_QV_CODES(RND, 2);              \
        __m256i e = TIO_QV_CODES(RND, 3);                                                                  \
        low = _mm256_min_epi32(low, _mm256_min_epi32(_mm256_min_epi32(a, b), _mm256_min_epi32(c, e)));     \
        __m256i v = PACK16(PACK32(a, b), PACK32(c, e));                                                    \
        v = _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));                     \
        _mm256_storeu_si256((__m256i *)(d + i), v);                                                        \
    }
/* 16 two-byte codes: 4-code groups in the order 0 2 1 3 */
#define TIO_QV_STEP16(RND, PACK32)                                                                         \
    {                                                                                                      \
        __m256i a = TIO_QV_CODES(RND, 0), b = TIO_QV_CODES(RND, 1);                                        \
        low = _mm256_min_epi32(low, _mm256_min_epi32(a, b));                                               \
        _mm256_storeu_si256((__m256i *)(d + i), _mm256_permute4x64_epi64(PACK32(a, b), 0xD8));            \
    }
#define TIO_QV_STEP_u8(RND) TIO_QV_STEP8(RND, _mm256_packs_epi32, _mm256_packus_epi16) /* (int16 between) */
#define TIO_QV_STEP_i8(RND) TIO_QV_STEP8(RND, _mm256_packs_epi32, _mm256_packs_epi16)
#define TIO_QV_STEP_u16(RND) TIO_QV_STEP16(RND, _mm256_packus_epi32)
#define TIO_QV_STEP_i16(RND) TIO_QV_STEP16(RND, _mm256_packs_epi32)
static int tio_qvec_usable(void) { return tio_cpu_avx2(); }

#elif defined(__aarch64__)
#include <arm_neon.h>
#define TIO_QVEC 1
#define TIO_QV_ATTR
#define TIO_QV_W8 16
#define TIO_QV_W16 8
#define TIO_QV_SETUP                                                                                       \
    const float32x4_t vs = vdupq_n_f32((float)p->scale), vz = vdupq_n_f32((float)p->zero_point);
#define TIO_QV_NAN_RESET uint32x4_t ok = vdupq_n_u32(~0u);
#define TIO_QV_NAN_SEEN (vminvq_u32(ok) == 0)
#define TIO_QV_CVT_trunc vcvtq_s32_f32  /* fcvtzs: saturating, NaN -> 0 */
#define TIO_QV_CVT_nearest vcvtnq_s32_f32 /* fcvtns: half to even, saturating */
/* t = x * scale + zp for 4 values (the k-th 4 of the step), noting NaN */
static inline float32x4_t tio_qv_neon(const float *s, float32x4_t vs, float32x4_t vz, uint32x4_t *ok)
{
    float32x4_t t = vaddq_f32(vmulq_f32(vld1q_f32(s), vs), vz);
    *ok = vandq_u32(*ok, vceqq_f32(t, t));
    return t;
}
#define TIO_QV_CODES(RND, k) TIO_QV_CVT_##RND(tio_qv_neon(s + i + 4 * (k), vs, vz, &ok))
/* 16 one-byte codes: narrow the int32 codes twice with saturation (N32 to 16 bits, N16 to 8) */
#define TIO_QV_STEP8(RND, N32, C16, N16, C8, STORE, DT)                                                    \
    STORE((DT *)(d + i), C8(N16(C16(N32(TIO_QV_CODES(RND, 0)), N32(TIO_QV_CODES(RND, 1)))),                \
                            N16(C16(N32(TIO_QV_CODES(RND, 2)), N32(TIO_QV_CODES(RND, 3))))));
/* 8 two-byte codes: narrow once */
#define TIO_QV_STEP16(RND, N32, C16, STORE, DT)                                                            \
    STORE((DT *)(d + i), C16(N32(TIO_QV_CODES(RND, 0)), N32(TIO_QV_CODES(RND, 1))));
#define TIO_QV_STEP_u8(RND) TIO_QV_STEP8(RND, vqmovun_s32, vcombine_u16, vqmovn_u16, vcombine_u8, vst1q_u8, uint8_t)
#define TIO_QV_STEP_i8(RND) TIO_QV_STEP8(RND, vqmovn_s32, vcombine_s16, vqmovn_s16, vcombine_s8, vst1q_s8, int8_t)
#define TIO_QV_STEP_u16(RND) TIO_QV_STEP16(RND, vqmovun_s32, vcombine_u16, vst1q_u16, uint16_t)
#define TIO_QV_STEP_i16(RND) TIO_QV_STEP16(RND, vqmovn_s32, vcombine_s16, vst1q_s16, int16_t)
static int tio_qvec_usable(void) { return tio_simd_on(); }
#endif

#if defined(TIO_QVEC)
TIO_QROWS_VEC(trunc)
TIO_QROWS_VEC(nearest)

/* [code type 0..3][nearest] */
static const tio_qrow tio_qrows_vec[4][2] = {
    {qv_f32_u8_trunc, qv_f32_u8_nearest}, {qv_f32_i8_trunc, qv_f32_i8_nearest},
    {qv_f32_u16_trunc, qv_f32_u16_nearest}, {qv_f32_i16_trunc, qv_f32_i16_nearest},
};
#endif

/* [source f32/f64][code type 0..5][nearest] */
static const tio_qrow tio_qrows[2][6][2] = {
    {{q_f32_u8_trunc, q_f32_u8_nearest}, {q_f32_i8_trunc, q_f32_i8_nearest},
     {q_f32_u16_trunc, q_f32_u16_nearest}, {q_f32_i16_trunc, q_f32_i16_nearest},
     {q_f32_u32_trunc, q_f32_u32_nearest}, {q_f32_i32_trunc, q_f32_i32_nearest}},
    {{q_f64_u8_trunc, q_f64_u8_nearest}, {q_f64_i8_trunc, q_f64_i8_nearest},
     {q_f64_u16_trunc, q_f64_u16_nearest}, {q_f64_i16_trunc, q_f64_i16_nearest},
     {q_f64_u32_trunc, q_f64_u32_nearest}, {q_f64_i32_trunc, q_f64_i32_nearest}},
};

/* Work items of an elementwise job: (outer row, chunk of the inner row). */
typedef struct {
    char *dst;
    const char *src;
    tio_walk walk;      /* outer axes: a = dst, b = src */
    int64_t n, ds, ss;  /* inner row */
    int64_t chunks;     /* per row */
    int64_t rows;       /* outer rows */
    tio_qrow qrow;
    tio_qp qp;
    int64_t nans;
    const void *deq;    /* dequantize job (tio_deq) or NULL */
} tio_ejob;

/* The geometry of an elementwise job over ndim axes (1..TIO_MAXDIM): the last is the inner row, the
 * others the outer walk (a = dst, b = src). */
static void tio_ejob_init(tio_ejob *job, void *dst, const void *src, int ndim, const int64_t *shape,
                          const int64_t *dst_strides, const int64_t *src_strides)
{
    memset(job, 0, sizeof *job);
    job->dst = (char *)dst;
    job->src = (const char *)src;
    job->walk.ndim = ndim - 1;
    job->rows = 1;
    for (int k = 0; k < ndim - 1; k++) {
        job->walk.shape[k] = shape[k];
        job->walk.a_strides[k] = dst_strides[k];
        job->walk.b_strides[k] = src_strides[k];
        job->rows *= shape[k];
    }
    job->n = shape[ndim - 1];
    job->ds = dst_strides[ndim - 1];
    job->ss = src_strides[ndim - 1];
    job->chunks = job->n > 0 ? (job->n + TIO_CHUNK - 1) / TIO_CHUNK : 0;
}

/* Run an initialised job's work items with `fn`, on up to `threads` threads when it moves enough
 * bytes (item_bytes per element, both sides). */
static void tio_ejob_run(tio_ejob *job, tio_range_fn fn, int threads, int64_t item_bytes)
{
    tio_parallel(fn, job, job->rows * job->chunks, threads, job->rows * job->n * item_bytes);
}

/* A run of work items: `rows` rows (drs / srs bytes apart) of `count` elements from dst / src;
 * returns the NaN count (quantize). */
typedef int64_t (*tio_item_fn)(const tio_ejob *job, char *dst, const char *src, int64_t count, int64_t rows,
                               int64_t drs, int64_t srs);

/* Work items lo..hi-1 of an elementwise job: (outer row, chunk of the inner row). Rows that are not
 * split into chunks go in runs along the innermost outer axis, one call per run. */
static int64_t tio_each_item(const tio_ejob *job, int64_t lo, int64_t hi, tio_item_fn fn)
{
    const tio_walk *w = &job->walk;
    const int k = w->ndim - 1; /* the innermost outer axis (-1: none) */
    int64_t total = 0;
    tio_cursor cur;
    tio_cursor_start(w, lo, job->chunks, &cur);
    for (int64_t item = lo; item < hi;) {
        int64_t start = cur.piece * TIO_CHUNK, count = job->n - start < TIO_CHUNK ? job->n - start : TIO_CHUNK;
        int64_t rows = 1;
        if (job->chunks == 1 && k >= 0) {
            rows = w->shape[k] - cur.idx[k];
            rows = rows < hi - item ? rows : hi - item;
        }
        total += fn(job, job->dst + cur.a + start * job->ds, job->src + cur.b + start * job->ss, count, rows,
                    k >= 0 ? w->a_strides[k] : 0, k >= 0 ? w->b_strides[k] : 0);
        item += rows;
        if (rows > 1) { /* step over all but the last row of the run at once */
            cur.idx[k] += rows - 1;
            cur.a += (rows - 1) * w->a_strides[k];
            cur.b += (rows - 1) * w->b_strides[k];
        }
        tio_cursor_next(w, job->chunks, &cur);
    }
    return total;
}

static int64_t tio_quantize_item(const tio_ejob *job, char *dst, const char *src, int64_t count, int64_t rows,
                                 int64_t drs, int64_t srs)
{
    return job->qrow(dst, src, count, job->ds, job->ss, rows, drs, srs, &job->qp);
}

static void tio_quantize_range(void *ctx, int64_t lo, int64_t hi)
{
    tio_ejob *job = (tio_ejob *)ctx;
    int64_t nans = tio_each_item(job, lo, hi, tio_quantize_item);
    if (nans)
        __atomic_fetch_add(&job->nans, nans, __ATOMIC_RELAXED);
}

static int tio_code_size(int type)
{
    switch (type) {
    case TIO_U8: case TIO_I8: return 1;
    case TIO_U16: case TIO_I16: return 2;
    case TIO_U32: case TIO_I32: case TIO_F32: return 4;
    default: return 8;
    }
}

int64_t tio_quantize(void *dst, int dst_type, const void *src, int src_type, int ndim, const int64_t *shape,
                     const int64_t *dst_strides, const int64_t *src_strides, double scale, double zero_point,
                     double lo, double hi, int nearest, int threads)
{
    if (ndim < 1 || ndim > TIO_MAXDIM || dst_type < TIO_U8 || dst_type > TIO_I32
        || (src_type != TIO_F32 && src_type != TIO_F64))
        return -1;
    tio_ejob job;
    tio_ejob_init(&job, dst, src, ndim, shape, dst_strides, src_strides);
    job.qrow = tio_qrows[src_type == TIO_F64][dst_type][nearest != 0];
#if defined(TIO_QVEC)
    /* (the vector rows rely on saturating narrowing: the bounds must be the code type's) */
    if (src_type == TIO_F32 && dst_type <= TIO_I16 && lo == (double)tio_code_lo[dst_type]
        && hi == (double)tio_code_hi[dst_type]
        && tio_qvec_usable())
        job.qrow = tio_qrows_vec[dst_type][nearest != 0];
#endif
    job.qp.scale = scale;
    job.qp.zero_point = zero_point;
    job.qp.lo = lo;
    job.qp.hi = hi;
    tio_ejob_run(&job, tio_quantize_range, threads, tio_code_size(src_type) + tio_code_size(dst_type));
    return job.nans;
}

int64_t tio_quantize_prepared(void *dst, const void *src, const tio_qargs *a, int threads)
{
    return tio_quantize(dst, a->dst_type, src, a->src_type, a->ndim, a->shape, a->dst_strides, a->src_strides,
                        a->scale, a->zero_point, a->lo, a->hi, a->nearest, threads);
}

/* ---- dequantize ------------------------------------------------------------------------------ */

/* How a job dequantizes (tio_dequantize_kind): the first that applies of */
enum {
    TIO_DEQ_POW2 = 3,   /* codes of <= 16 bits, |zp| <= 2**23, scale 2**E with |E| <= 100: an exact product */
    TIO_DEQ_FMA = 2,    /* codes of <= 16 bits, |code - zp| <= 2**16, 2**-100 <= scale < 2**101, hardware FMA:
                           tio_div_by_inverse (proven equal to the division) */
    TIO_DEQ_NARROW = 1, /* codes of <= 16 bits, |zp| <= 2**23: the float64 product */
    TIO_DEQ_WIDE = 0,   /* anything else */
};

struct tio_deq_s;
typedef void (*tio_drow)(float *restrict dst, const char *restrict src, int64_t n, int64_t ds, int64_t ss,
                         int64_t rows, int64_t drs, int64_t srs, const struct tio_deq_s *p);

typedef struct tio_deq_s {
    tio_drow drow;
    double inverse;      /* 1 / scale in float64 */
    float scale, inv;    /* scale and RN(1 / scale) in float32 */
    int64_t zero_point;
} tio_deq;

/* A run of dequantize rows: dst[i] = F(q) over the codes q of type ST, contiguous or strided; F may
 * use zp (int32), zpd (double), inverse (double), scale and inv (float). ATTR: the rows' target. */
#define TIO_DROW(NAME, ST, F, ATTR)                                                                        \
    ATTR static void NAME(float *restrict dst, const char *restrict src, int64_t n, int64_t ds, int64_t ss, \
                          int64_t rows, int64_t drs, int64_t srs, const tio_deq *p)                        \
    {                                                                                                      \
        const int32_t zp = (int32_t)p->zero_point;                                                         \
        const double zpd = (double)p->zero_point, inverse = p->inverse;                                    \
        const float scale = p->scale, inv = p->inv;                                                        \
        (void)zp, (void)zpd, (void)inverse, (void)scale, (void)inv;                                        \
        if (ds == 4 && ss == (int64_t)sizeof(ST)) {                                                        \
            for (int64_t r = 0; r < rows; r++) {                                                           \
                float *restrict d = (float *)((char *)dst + r * drs);                                      \
                const ST *restrict s = (const ST *)(src + r * srs);                                        \
                for (int64_t i = 0; i < n; i++)                                                            \
                    d[i] = F(s[i]);                                                                        \
            }                                                                                              \
        } else {                                                                                           \
            for (int64_t r = 0; r < rows; r++) {                                                           \
                char *d = (char *)dst + r * drs;                                                           \
                const char *s = src + r * srs;                                                             \
                for (int64_t i = 0; i < n; i++)                                                            \
                    *(float *)(d + i * ds) = F(*(const ST *)(s + i * ss));                                 \
            }                                                                                              \
        }                                                                                                  \
    }

/* Codes of at most 16 bits with |zero point| <= 2**23: the difference is exact in int32. */
#define TIO_F_NARROW(q) ((float)((double)((int32_t)(q) - zp) * inverse))
/* Any code: the difference in float64 (exact below 2**53), rounded once to float32 (as NumPy does). */
#define TIO_F_WIDE(q) ((float)((double)(float)((double)(q) - zpd) * inverse))
/* Codes of at most 16 bits with |zero point| <= 2**23 and a scale 2**e, |e| <= 100: the difference is
 * exact in float32 and so is its product with 2**-e (a normal float32), which is therefore the
 * correctly rounded quotient. Power-of-two scales are common in TIDL models; this saves the float64
 * round trip (~3x fewer instructions, and float64 is slow on the board's cores). */
#define TIO_F_POW2(q) ((float)((int32_t)(q) - zp) * inv)
/* Any other scale in range, |q - zp| <= 2**16: the product and one FMA correction step. */
#define TIO_F_FMA(q) tio_div_by_inverse((float)((int32_t)(q) - zp), scale, inv)

#define TIO_DROWS(KIND, F, ATTR)                                                                           \
    TIO_DROW(d_u8_##KIND, uint8_t, F, ATTR)                                                                \
    TIO_DROW(d_i8_##KIND, int8_t, F, ATTR)                                                                 \
    TIO_DROW(d_u16_##KIND, uint16_t, F, ATTR)                                                              \
    TIO_DROW(d_i16_##KIND, int16_t, F, ATTR)

TIO_DROWS(pow2, TIO_F_POW2, TIO_CLONES)
TIO_DROWS(narrow, TIO_F_NARROW, TIO_CLONES)
TIO_DROWS(wide, TIO_F_WIDE, TIO_CLONES)
TIO_DROW(d_u32_wide, uint32_t, TIO_F_WIDE, TIO_CLONES)
TIO_DROW(d_i32_wide, int32_t, TIO_F_WIDE, TIO_CLONES)

/* The FMA rows exist where an FMA instruction surely does (aarch64; a build for an FMA target) or is
 * picked at run time (x86-64 with AVX2 and FMA); elsewhere fmaf would be a slow library call, and
 * such scales take the float64 product. */
#if defined(TIO_X86_DISPATCH)
TIO_DROWS(fma, TIO_F_FMA, __attribute__((target("avx2,fma"))))
static int tio_fma_usable(void) { return tio_cpu_avx2_fma(); }
#elif defined(__aarch64__) || defined(__FMA__)
TIO_DROWS(fma, TIO_F_FMA, )
static int tio_fma_usable(void) { return tio_simd_on(); }
#else
#define d_u8_fma d_u8_narrow
#define d_i8_fma d_i8_narrow
#define d_u16_fma d_u16_narrow
#define d_i16_fma d_i16_narrow
static int tio_fma_usable(void) { return 0; }
#endif

/* [code type][kind] */
static const tio_drow tio_drows[6][4] = {
    {d_u8_wide, d_u8_narrow, d_u8_fma, d_u8_pow2}, {d_i8_wide, d_i8_narrow, d_i8_fma, d_i8_pow2},
    {d_u16_wide, d_u16_narrow, d_u16_fma, d_u16_pow2}, {d_i16_wide, d_i16_narrow, d_i16_fma, d_i16_pow2},
    {d_u32_wide, d_u32_wide, d_u32_wide, d_u32_wide}, {d_i32_wide, d_i32_wide, d_i32_wide, d_i32_wide},
};

int tio_dequantize_kind(int src_type, float scale, int64_t zero_point)
{
    if (src_type < TIO_U8 || src_type > TIO_I32 || !(scale > 0.0f))
        return -1;
    if (src_type > TIO_I16 || zero_point > ((int64_t)1 << 23) || zero_point < -((int64_t)1 << 23))
        return TIO_DEQ_WIDE;
    if (!(scale <= FLT_MAX)) /* +inf: the float64 product gives the division's zeros */
        return TIO_DEQ_NARROW;
    int e = 0;
    double mantissa = frexp((double)scale, &e); /* scale = mantissa * 2**e, mantissa in [0.5, 1) */
    if (e < -99 || e > 101)                     /* outside 2**-100 <= scale < 2**101 */
        return TIO_DEQ_NARROW;
    if (mantissa == 0.5)
        return TIO_DEQ_POW2;
    int64_t below = zero_point - tio_code_lo[src_type], above = tio_code_hi[src_type] - zero_point;
    if (below <= TIO_DIV_FMA_MAX_ABS && below >= -TIO_DIV_FMA_MAX_ABS && above <= TIO_DIV_FMA_MAX_ABS
        && above >= -TIO_DIV_FMA_MAX_ABS && tio_fma_usable())
        return TIO_DEQ_FMA;
    return TIO_DEQ_NARROW;
}

static int64_t tio_dequantize_item(const tio_ejob *job, char *dst, const char *src, int64_t count, int64_t rows,
                                   int64_t drs, int64_t srs)
{
    const tio_deq *deq = (const tio_deq *)job->deq;
    deq->drow((float *)dst, src, count, job->ds, job->ss, rows, drs, srs, deq);
    return 0;
}

static void tio_dequantize_range(void *ctx, int64_t lo, int64_t hi)
{
    tio_each_item((const tio_ejob *)ctx, lo, hi, tio_dequantize_item);
}

int tio_dequantize(float *dst, const void *src, int src_type, int ndim, const int64_t *shape,
                   const int64_t *dst_strides, const int64_t *src_strides, float scale, int64_t zero_point,
                   int threads)
{
    int kind = tio_dequantize_kind(src_type, scale, zero_point);
    if (ndim < 1 || ndim > TIO_MAXDIM || kind < 0)
        return -1;
    tio_ejob job;
    tio_ejob_init(&job, dst, src, ndim, shape, dst_strides, src_strides);
    tio_deq deq;
    deq.drow = tio_drows[src_type][kind];
    deq.inverse = 1.0 / (double)scale;
    deq.scale = scale;
    deq.inv = 1.0f / scale;
    deq.zero_point = zero_point;
    job.deq = &deq;
    tio_ejob_run(&job, tio_dequantize_range, threads, 4 + tio_code_size(src_type));
    return 0;
}
