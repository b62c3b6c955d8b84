/* Comparison sums of two tensors in one pass (tidl_io.trace.metrics.Accumulator's native path).
 *
 * Each side is float32 values or 8/16-bit codes with (scale, zero point), read as the real values
 * float32((q - zero_point) / scale) (the float32 division, as tidl_io.quant.dequantize_codes).
 * Over a (outer, channels, inner) walk with byte strides it adds, per channel and in float64:
 *   sum (ref - test)^2, sum ref^2, sum test^2, sum ref*test, sum |ref - test|, and max |ref - test|
 * (NaN never wins the max: a NaN difference shows as a NaN sum of |ref - test|, which the caller
 * turns into a NaN max), plus the number of TEST codes at their type's maximum (or minimum, for
 * signed types). The difference and the products are taken in float64 from the float32 values (the
 * difference of two float32 is exact there; the products of float32 are exact too). Only the order of
 * the additions differs from NumPy's (8 lanes per row, rows per channel in walk order, one block of
 * sums per thread): the caller states the tolerance.
 *
 * Output: `threads` blocks of TIO_SUMS_BLOCK(channels) doubles (tidl_io_native.h), zeroed by the caller;
 * block t holds thread t's sums as [err2, ref2, test2, cross, abs, max][channel] (enum tio_sum), then the
 * count of test codes at a limit.
 * Work items: along `inner` (inner != 1), pieces of rows, every channel's piece before the next piece
 * (64 K elements when both sides' rows are contiguous; 1 K when one side's elements are apart, e.g. an
 * NHWC golden read in NCHW order: its tile of all channels then stays in the cache); with inner == 1,
 * one `outer` index at a time, its channels as the row, each element into its own channel's sums.
 * Row pieces are loaded CHUNK elements at a time (dequantized into a local float32 buffer unless the
 * side is contiguous float32), then summed in 2 x 8 float64 lanes.
 */
#include "tidl_io_native.h"

#include <math.h>
#include <string.h>

#define TIO_CMP_CHUNK 1024               /* elements dequantized into a local buffer at a time */
#define TIO_CMP_PIECE ((int64_t)1 << 16) /* elements per work item along a long row */
#define TIO_CMP_LANES 8
#define TIO_CMP_TILE ((int64_t)1 << 10) /* elements per work item along a strided row */

/* The row kernels are also compiled for AVX-512 on x86-64 (picked at load time, as TIO_CLONES does). */
#if defined(TIO_X86_DISPATCH)
#define TIO_CMP_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define TIO_CMP_CLONES TIO_CLONES
#endif

typedef struct {
    const char *base;
    int type;      /* TIO_U8 .. TIO_I16, or TIO_F32 */
    float scale;   /* codes: the divisor */
    double inverse; /* 1 / scale in float64 */
    int32_t zp;    /* codes: the zero point (|zp| <= 2**23: the difference is exact in int32 and in float32) */
    int count;      /* whether codes at a limit are counted */
    int fma;        /* the FMA rows apply (see tio_cmp_fma_usable) */
    float inv;      /* 1 / scale in float32 */
    int pow2;       /* scale = 2**e, |e| <= 100: the float32 product by 1/scale is exact (quant.c's pow2 kind) */
    int32_t lo, hi; /* codes at a limit: hi, and lo for signed types (lo = INT32_MIN otherwise: never met) */
    int64_t strides[3];
} tio_side;

typedef struct {
    tio_side ref, test;
    int64_t shape[3];
    int64_t pieces; /* work items per row (row mode) */
    int64_t piece;  /* elements per piece */
    int threads;
    int rowmode;    /* 1: rows along inner; 0: inner == 1, rows along channels */
    double *out;
} tio_cmp_job;

static int tio_cmp_contiguous(const tio_side *s, int64_t step)
{
    static const int64_t size[4] = {1, 1, 2, 2};
    return step == (s->type == TIO_F32 ? 4 : size[s->type]);
}

/* Codes within 2**16 of the zero point, 2**-100 <= scale < 2**101, and an FMA unit: the float32 product
 * by 1/scale and one FMA correction (tio_div_by_inverse, proven equal to the float32 division by
 * tools/prove_dequantize.c; quant.c's "fma" kind). Picked at run time on x86-64 (AVX2 + FMA). */
#if defined(TIO_X86_DISPATCH)
#define TIO_CMP_FMA_ATTR __attribute__((target("avx2,fma")))
#define TIO_CMP_FMA 1
static int tio_cmp_fma_usable(void) { return tio_cpu_avx2_fma(); }
#elif defined(__aarch64__) || defined(__FMA__)
#define TIO_CMP_FMA_ATTR
#define TIO_CMP_FMA 1
static int tio_cmp_fma_usable(void) { return tio_simd_on(); }
#else
static int tio_cmp_fma_usable(void) { return 0; }
#endif

#if defined(TIO_CMP_FMA)
#define TIO_CMP_LOAD_FMA(NAME, T)                                                                          \
    TIO_CMP_FMA_ATTR static int64_t NAME(float *restrict dst, const T *restrict q, int64_t n, const tio_side *s) \
    {                                                                                                      \
        const int32_t zp = s->zp, lo = s->lo, hi = s->hi;                                                  \
        const float b = s->scale, y = s->inv;                                                              \
        int32_t at = 0;                                                                                    \
        for (int64_t i = 0; i < n; i++) {                                                                  \
            int32_t v = (int32_t)q[i];                                                                     \
            dst[i] = tio_div_by_inverse((float)(v - zp), b, y);                                            \
            at += (v == hi) | (v == lo);                                                                   \
        }                                                                                                  \
        return at;                                                                                         \
    }
TIO_CMP_LOAD_FMA(tio_cmp_fma_u8, uint8_t)
TIO_CMP_LOAD_FMA(tio_cmp_fma_i8, int8_t)
TIO_CMP_LOAD_FMA(tio_cmp_fma_u16, uint16_t)
TIO_CMP_LOAD_FMA(tio_cmp_fma_i16, int16_t)
#define TIO_CMP_FMA_CALL(NAME, T)                                                                          \
    if (step == (int64_t)sizeof(T) && s->fma)                                                              \
        return NAME(dst, (const T *)src, n, s);
#else
#define TIO_CMP_FMA_CALL(NAME, T)
#endif

/* Real values of n elements of `s` from byte offset `at`, `step` bytes apart, into dst (or a pointer to
 * the source itself when it is contiguous float32); the number of codes at a limit into *limits. */
#define TIO_CMP_LOAD(NAME, T, FMA_ROW)                                                                     \
    TIO_CMP_CLONES static int64_t NAME(float *restrict dst, const char *restrict src, int64_t n, int64_t step,  \
                                   const tio_side *s)                                                      \
    {                                                                                                      \
        TIO_CMP_FMA_CALL(FMA_ROW, T)                                                                       \
        const int32_t zp = s->zp, lo = s->lo, hi = s->hi;                                                  \
        const double inverse = s->inverse;                                                                 \
        int32_t at = 0;                                                                                    \
        if (step == (int64_t)sizeof(T) && s->pow2) { /* exact in float32 */                               \
            const T *restrict q = (const T *)src;                                                          \
            const float inv = (float)inverse;                                                              \
            for (int64_t i = 0; i < n; i++) {                                                              \
                int32_t v = (int32_t)q[i];                                                                 \
                dst[i] = (float)(v - zp) * inv;                                                            \
                at += (v == hi) | (v == lo);                                                               \
            }                                                                                              \
        } else if (step == (int64_t)sizeof(T) && !s->count) {                                              \
            const T *restrict q = (const T *)src;                                                          \
            for (int64_t i = 0; i < n; i++)                                                                \
                dst[i] = (float)((double)((int32_t)q[i] - zp) * inverse);                                  \
        } else if (step == (int64_t)sizeof(T)) {                                                           \
            const T *restrict q = (const T *)src;                                                          \
            for (int64_t i = 0; i < n; i++) {                                                              \
                int32_t v = (int32_t)q[i];                                                                 \
                dst[i] = (float)((double)(v - zp) * inverse);                                                          \
                at += (v == hi) | (v == lo);                                                               \
            }                                                                                              \
        } else {                                                                                           \
            for (int64_t i = 0; i < n; i++) {                                                              \
                int32_t v = (int32_t) * (const T *)(src + i * step);                                       \
                dst[i] = (float)((double)(v - zp) * inverse);                                                          \
                at += (v == hi) | (v == lo);                                                               \
            }                                                                                              \
        }                                                                                                  \
        return at;                                                                                         \
    }

TIO_CMP_LOAD(tio_cmp_u8, uint8_t, tio_cmp_fma_u8)
TIO_CMP_LOAD(tio_cmp_i8, int8_t, tio_cmp_fma_i8)
TIO_CMP_LOAD(tio_cmp_u16, uint16_t, tio_cmp_fma_u16)
TIO_CMP_LOAD(tio_cmp_i16, int16_t, tio_cmp_fma_i16)

static const float *tio_cmp_values(float *buf, const char *src, int64_t n, int64_t step, const tio_side *s,
                                   int64_t *limits)
{
    switch (s->type) {
    case TIO_U8: *limits += tio_cmp_u8(buf, src, n, step, s); return buf;
    case TIO_I8: *limits += tio_cmp_i8(buf, src, n, step, s); return buf;
    case TIO_U16: *limits += tio_cmp_u16(buf, src, n, step, s); return buf;
    case TIO_I16: *limits += tio_cmp_i16(buf, src, n, step, s); return buf;
    default:
        if (step == 4)
            return (const float *)src;
        for (int64_t i = 0; i < n; i++)
            memcpy(buf + i, src + i * step, 4);
        return buf;
    }
}

/* The lane sums of one row: v[k] = 8 lanes of err2, ref2, test2, cross, abs, max (GCC vector extensions:
 * 4 AVX2 or 8 AVX-512 or NEON registers' worth, held in registers across a chunk). */
typedef double tio_v8d __attribute__((vector_size(64)));
typedef float tio_v8f __attribute__((vector_size(32)));
typedef int64_t tio_v8l __attribute__((vector_size(64)));
typedef struct {
    tio_v8d v[TIO_SUMS]; /* enum tio_sum's order */
} tio_lanes;

TIO_CMP_CLONES static void tio_cmp_row(tio_lanes *restrict acc, const float *restrict r, const float *restrict t,
                                       int64_t n)
{
    tio_v8d e2 = acc->v[TIO_SUM_ERR2], r2 = acc->v[TIO_SUM_REF2], t2 = acc->v[TIO_SUM_TEST2];
    tio_v8d rt = acc->v[TIO_SUM_CROSS], ab = acc->v[TIO_SUM_ABS], mx = acc->v[TIO_SUM_MAX];
    const tio_v8l magnitude = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX,
                               INT64_MAX};
    tio_v8d e2b = {0}, r2b = {0}, t2b = {0}, rtb = {0}, abb = {0}, mxb = mx; /* a second set: 2 chains */
    int64_t i = 0;
#define TIO_CMP_STEP(E2, R2, T2, RT, AB, MX, at)                                                           \
    {                                                                                                      \
        tio_v8f fa, fb;                                                                                    \
        memcpy(&fa, r + (at), sizeof fa);                                                                  \
        memcpy(&fb, t + (at), sizeof fb);                                                                  \
        tio_v8d a = __builtin_convertvector(fa, tio_v8d), b = __builtin_convertvector(fb, tio_v8d), d = a - b; \
        tio_v8d e = (tio_v8d)((tio_v8l)d & magnitude);                                                     \
        E2 += d * d;                                                                                       \
        R2 += a * a;                                                                                       \
        T2 += b * b;                                                                                       \
        RT += a * b;                                                                                       \
        AB += e;                                                                                           \
        tio_v8l more = e > MX; /* NaN: false, the max stays */                                             \
        MX = (tio_v8d)(((tio_v8l)e & more) | ((tio_v8l)MX & ~more));                                      \
    }
    for (; i + 2 * TIO_CMP_LANES <= n; i += 2 * TIO_CMP_LANES) {
        TIO_CMP_STEP(e2, r2, t2, rt, ab, mx, i)
        TIO_CMP_STEP(e2b, r2b, t2b, rtb, abb, mxb, i + TIO_CMP_LANES)
    }
    for (; i + TIO_CMP_LANES <= n; i += TIO_CMP_LANES)
        TIO_CMP_STEP(e2, r2, t2, rt, ab, mx, i)
#undef TIO_CMP_STEP
    e2 += e2b, r2 += r2b, t2 += t2b, rt += rtb, ab += abb;
    {
        tio_v8l more = mxb > mx;
        mx = (tio_v8d)(((tio_v8l)mxb & more) | ((tio_v8l)mx & ~more));
    }
    acc->v[TIO_SUM_ERR2] = e2, acc->v[TIO_SUM_REF2] = r2, acc->v[TIO_SUM_TEST2] = t2;
    acc->v[TIO_SUM_CROSS] = rt, acc->v[TIO_SUM_ABS] = ab, acc->v[TIO_SUM_MAX] = mx;
    for (int j = 0; i < n; i++, j++) { /* the tail: lanes 0.. in order */
        double a = (double)r[i], b = (double)t[i], d = a - b, e = fabs(d);
        acc->v[TIO_SUM_ERR2][j] += d * d;
        acc->v[TIO_SUM_REF2][j] += a * a;
        acc->v[TIO_SUM_TEST2][j] += b * b;
        acc->v[TIO_SUM_CROSS][j] += a * b;
        acc->v[TIO_SUM_ABS][j] += e;
        acc->v[TIO_SUM_MAX][j] = e > acc->v[TIO_SUM_MAX][j] ? e : acc->v[TIO_SUM_MAX][j];
    }
}

/* Elementwise into per-channel sums (rows along the channels). */
TIO_CMP_CLONES static void tio_cmp_channels(double *restrict sums, int64_t c, int64_t at, const float *restrict r,
                                        const float *restrict t, int64_t n)
{
    double *restrict s0 = sums + TIO_SUM_ERR2 * c + at, *restrict s1 = sums + TIO_SUM_REF2 * c + at;
    double *restrict s2 = sums + TIO_SUM_TEST2 * c + at;
    double *restrict s3 = sums + TIO_SUM_CROSS * c + at, *restrict s4 = sums + TIO_SUM_ABS * c + at;
    double *restrict s5 = sums + TIO_SUM_MAX * c + at;
    for (int64_t i = 0; i < n; i++) {
        double a = (double)r[i], b = (double)t[i], d = a - b, e = fabs(d);
        s0[i] += d * d;
        s1[i] += a * a;
        s2[i] += b * b;
        s3[i] += a * b;
        s4[i] += e;
        s5[i] = e > s5[i] ? e : s5[i];
    }
}

/* Work item ``item`` of a row-mode job (channels c, each cut into ``pieces`` pieces of ``piece``
 * elements out of n): its outer index, channel and element range. Piece-major: every channel's
 * piece before the next piece, so that a side whose channels are interleaved (an NHWC golden read
 * as NCHW) is read from the cache C times, not memory. */
static inline void tio_cmp_item(int64_t item, int64_t c, int64_t pieces, int64_t piece, int64_t n,
                                int64_t *i, int64_t *ch, int64_t *start, int64_t *stop)
{
    *ch = item % c;
    *i = item / c / pieces;
    *start = ((item / c) % pieces) * piece;
    *stop = *start + piece < n ? *start + piece : n;
}

static void tio_cmp_slab(const tio_cmp_job *job, int64_t lo, int64_t hi, double *sums)
{
    float rbuf[TIO_CMP_CHUNK], tbuf[TIO_CMP_CHUNK];
    const tio_side *R = &job->ref, *T = &job->test;
    const int64_t c = job->shape[1], n = job->shape[2];
    int64_t limits = 0, ignored = 0;
    if (job->rowmode) {
        for (int64_t item = lo; item < hi; item++) {
            int64_t i, ch, start, stop;
            tio_cmp_item(item, c, job->pieces, job->piece, n, &i, &ch, &start, &stop);
            const char *rp = R->base + i * R->strides[0] + ch * R->strides[1];
            const char *tp = T->base + i * T->strides[0] + ch * T->strides[1];
            tio_lanes acc;
            memset(&acc, 0, sizeof acc);
            for (int64_t k = start; k < stop; k += TIO_CMP_CHUNK) {
                int64_t m = stop - k < TIO_CMP_CHUNK ? stop - k : TIO_CMP_CHUNK;
                const float *a = tio_cmp_values(rbuf, rp + k * R->strides[2], m, R->strides[2], R, &ignored);
                const float *b = tio_cmp_values(tbuf, tp + k * T->strides[2], m, T->strides[2], T, &limits);
                tio_cmp_row(&acc, a, b, m);
            }
            for (int s = 0; s < TIO_SUM_MAX; s++) { /* the sums; the max below */
                double total = 0.0;
                for (int j = 0; j < TIO_CMP_LANES; j++)
                    total += acc.v[s][j];
                sums[s * c + ch] += total;
            }
            double mx = sums[TIO_SUM_MAX * c + ch];
            for (int j = 0; j < TIO_CMP_LANES; j++)
                mx = acc.v[TIO_SUM_MAX][j] > mx ? acc.v[TIO_SUM_MAX][j] : mx;
            sums[TIO_SUM_MAX * c + ch] = mx;
        }
    } else {
        for (int64_t i = lo; i < hi; i++) {
            const char *rp = R->base + i * R->strides[0], *tp = T->base + i * T->strides[0];
            for (int64_t k = 0; k < c; k += TIO_CMP_CHUNK) {
                int64_t m = c - k < TIO_CMP_CHUNK ? c - k : TIO_CMP_CHUNK;
                const float *a = tio_cmp_values(rbuf, rp + k * R->strides[1], m, R->strides[1], R, &ignored);
                const float *b = tio_cmp_values(tbuf, tp + k * T->strides[1], m, T->strides[1], T, &limits);
                tio_cmp_channels(sums, c, k, a, b, m);
            }
        }
    }
    sums[TIO_SUMS * c] += (double)limits;
}

/* threads.c runs items 0 .. threads-1 (one per output block), all in this thread when it is not worth more */
static void tio_cmp_range(void *ctx, int64_t lo, int64_t hi)
{
    const tio_cmp_job *job = (const tio_cmp_job *)ctx;
    int64_t items = job->rowmode ? job->shape[0] * job->shape[1] * job->pieces : job->shape[0];
    for (int64_t t = lo; t < hi; t++)
        tio_cmp_slab(job, items * t / job->threads, items * (t + 1) / job->threads,
                     job->out + t * TIO_SUMS_BLOCK(job->shape[1]));
}

static int tio_cmp_side(tio_side *s, const void *base, int type, float scale, int64_t zero_point,
                        const int64_t *strides)
{
    static const int32_t lo[4] = {INT32_MIN, -128, INT32_MIN, -32768}, hi[4] = {255, 127, 65535, 32767};
    s->base = (const char *)base;
    s->type = type;
    s->scale = scale;
    s->inverse = 1.0 / (double)scale;
    memcpy(s->strides, strides, sizeof s->strides);
    if (type == TIO_F32) {
        s->zp = 0;
        s->pow2 = s->fma = 0;
        s->lo = s->hi = INT32_MIN;
        return 0;
    }
    if (type < TIO_U8 || type > TIO_I16 || !(scale > 0.0f) || zero_point > ((int64_t)1 << 23)
        || zero_point < -((int64_t)1 << 23))
        return -1;
    s->zp = (int32_t)zero_point;
    s->count = 1;
    int e = 0;
    double mantissa = frexp((double)scale, &e);
    s->pow2 = mantissa == 0.5 && e >= -99 && e <= 101;
    s->inv = 1.0f / scale;
    int64_t below = zero_point - (type == TIO_I8 ? -128 : type == TIO_I16 ? -32768 : 0);
    int64_t above = (int64_t)hi[type] - zero_point;
    s->fma = !s->pow2 && e >= -99 && e <= 101 && below <= TIO_DIV_FMA_MAX_ABS && below >= -TIO_DIV_FMA_MAX_ABS
             && above <= TIO_DIV_FMA_MAX_ABS && above >= -TIO_DIV_FMA_MAX_ABS && tio_cmp_fma_usable();
    s->lo = lo[type];
    s->hi = hi[type];
    return 0;
}

int tio_compare(const void *ref, int ref_type, float ref_scale, int64_t ref_zero_point, const int64_t *ref_strides,
                const void *test, int test_type, float test_scale, int64_t test_zero_point,
                const int64_t *test_strides, const int64_t *shape, double *out, int threads)
{
    tio_cmp_job job;
    if (tio_cmp_side(&job.ref, ref, ref_type, ref_scale, ref_zero_point, ref_strides) != 0
        || tio_cmp_side(&job.test, test, test_type, test_scale, test_zero_point, test_strides) != 0)
        return -1;
    job.ref.count = 0; /* only the test's codes at a limit are counted */
    memcpy(job.shape, shape, sizeof job.shape);
    if (shape[0] < 0 || shape[1] < 1 || shape[2] < 0)
        return -1;
    if (threads < 1)
        threads = 1;
    job.rowmode = shape[2] != 1;
    /* pieces of a row: long when both sides' rows are contiguous, short enough for the other channels'
     * pieces to stay in the cache when one side's elements are apart */
    int dense = tio_cmp_contiguous(&job.ref, ref_strides[2]) && tio_cmp_contiguous(&job.test, test_strides[2]);
    job.piece = dense ? TIO_CMP_PIECE : TIO_CMP_TILE;
    job.pieces = job.rowmode ? (shape[2] + job.piece - 1) / job.piece : 1;
    job.threads = threads;
    job.out = out;
    int64_t items = job.rowmode ? shape[0] * shape[1] * job.pieces : shape[0];
    if (items == 0)
        return 0;
    int64_t bytes = shape[0] * shape[1] * shape[2] * (int64_t)(4 + 4); /* as much work as moving 8 B/element */
    tio_parallel(tio_cmp_range, &job, threads, threads, bytes);
    return 0;
}

/* ---- The integer route: both sides 8-bit codes of one type, one scale and one zero point ----------
 *
 * The real values are (q - zp) / scale for both sides, so every sum is an integer sum over the centred
 * codes x = a - zp, y = b - zp (|x|, |y| <= 255 for a zero point within the type's range) divided once
 * by scale^2 (or by scale for sum |x - y| and max |x - y|): tio_compare_codes adds, per channel and
 * exactly in int64, sum (x - y)^2, sum x^2, sum y^2, sum x*y, sum |x - y|, max |x - y| and the count of
 * test codes at a limit. Each term is at most 255^2 = 65025, so the int64 sums are exact for fewer
 * than 2^63 / 65025 ~ 1.4e14 elements per channel (the caller checks it). Within a chunk of
 * TIO_ICMP_CHUNK elements the sums are int32 (1024 * 65025 < 2^31) over int16 values: the pattern that
 * GCC turns into widening multiply-adds (pmaddwd on x86-64, smlal on aarch64). */

#define TIO_ICMP_CHUNK 1024

/* x = q - zp of n codes `step` bytes apart into dst; the number of codes at a limit (hi, or lo) */
#define TIO_ICMP_LOAD(NAME, T)                                                                             \
    TIO_CMP_CLONES static int32_t NAME(int16_t *restrict dst, const char *restrict src, int64_t n, int64_t step, \
                                       int32_t zp, int32_t lo, int32_t hi)                                 \
    {                                                                                                      \
        int32_t at = 0;                                                                                    \
        if (step == 1) {                                                                                   \
            const T *restrict q = (const T *)src;                                                          \
            for (int64_t i = 0; i < n; i++) {                                                              \
                int32_t v = (int32_t)q[i];                                                                 \
                dst[i] = (int16_t)(v - zp);                                                                \
                at += (v == hi) | (v == lo);                                                               \
            }                                                                                              \
        } else {                                                                                           \
            for (int64_t i = 0; i < n; i++) {                                                              \
                int32_t v = (int32_t) * (const T *)(src + i * step);                                       \
                dst[i] = (int16_t)(v - zp);                                                                \
                at += (v == hi) | (v == lo);                                                               \
            }                                                                                              \
        }                                                                                                  \
        return at;                                                                                         \
    }
TIO_ICMP_LOAD(tio_icmp_u8, uint8_t)
TIO_ICMP_LOAD(tio_icmp_i8, int8_t)

/* the TIO_SUMS sums of n <= TIO_ICMP_CHUNK pairs into acc[], indexed by enum tio_sum */
TIO_CMP_CLONES static void tio_icmp_row(int64_t *restrict acc, const int16_t *restrict x, const int16_t *restrict y,
                                        int64_t n)
{
    int32_t e2 = 0, x2 = 0, y2 = 0, xy = 0, ab = 0, mx = 0;
    for (int64_t i = 0; i < n; i++) {
        int16_t a = x[i], b = y[i], d = (int16_t)(a - b);
        int16_t e = (int16_t)(d < 0 ? -d : d);
        e2 += (int32_t)d * d;
        x2 += (int32_t)a * a;
        y2 += (int32_t)b * b;
        xy += (int32_t)a * b;
        ab += e;
        mx = e > mx ? e : mx;
    }
    acc[TIO_SUM_ERR2] += e2, acc[TIO_SUM_REF2] += x2, acc[TIO_SUM_TEST2] += y2, acc[TIO_SUM_CROSS] += xy;
    acc[TIO_SUM_ABS] += ab;
    acc[TIO_SUM_MAX] = mx > acc[TIO_SUM_MAX] ? mx : acc[TIO_SUM_MAX];
}

/* elementwise into per-channel sums (rows along the channels) */
TIO_CMP_CLONES static void tio_icmp_channels(int64_t *restrict sums, int64_t c, int64_t at, const int16_t *restrict x,
                                             const int16_t *restrict y, int64_t n)
{
    int64_t *restrict s0 = sums + TIO_SUM_ERR2 * c + at, *restrict s1 = sums + TIO_SUM_REF2 * c + at;
    int64_t *restrict s2 = sums + TIO_SUM_TEST2 * c + at;
    int64_t *restrict s3 = sums + TIO_SUM_CROSS * c + at, *restrict s4 = sums + TIO_SUM_ABS * c + at;
    int64_t *restrict s5 = sums + TIO_SUM_MAX * c + at;
    for (int64_t i = 0; i < n; i++) {
        int32_t a = x[i], b = y[i], d = a - b, e = d < 0 ? -d : d;
        s0[i] += d * d;
        s1[i] += a * a;
        s2[i] += b * b;
        s3[i] += a * b;
        s4[i] += e;
        s5[i] = e > s5[i] ? e : s5[i];
    }
}

/* both rows contiguous: the sums straight from the codes (no buffer), n <= TIO_ICMP_CHUNK; sum (x - y)^2 is
 * taken as sum x^2 + sum y^2 - 2 sum x*y (exact in integers), the number of test codes at a limit returned */
#define TIO_ICMP_DIRECT(NAME, T)                                                                           \
    TIO_CMP_CLONES static int32_t NAME(int64_t *restrict acc, const T *restrict r, const T *restrict t, int64_t n, \
                                       int32_t zp, int32_t lo, int32_t hi)                                 \
    {                                                                                                      \
        int32_t x2 = 0, y2 = 0, xy = 0, ab = 0, mx = 0, at = 0;                                            \
        for (int64_t i = 0; i < n; i++) {                                                                  \
            int16_t v = (int16_t)t[i];                                                                     \
            int16_t a = (int16_t)((int16_t)r[i] - zp), b = (int16_t)(v - zp), d = (int16_t)(a - b);       \
            int16_t e = (int16_t)(d < 0 ? -d : d);                                                         \
            x2 += (int32_t)a * a;                                                                          \
            y2 += (int32_t)b * b;                                                                          \
            xy += (int32_t)a * b;                                                                          \
            ab += e;                                                                                       \
            mx = e > mx ? e : mx;                                                                          \
            at += (v == hi) | (v == lo);                                                                   \
        }                                                                                                  \
        acc[TIO_SUM_ERR2] += (int64_t)x2 + y2 - 2 * (int64_t)xy, acc[TIO_SUM_REF2] += x2;                 \
        acc[TIO_SUM_TEST2] += y2, acc[TIO_SUM_CROSS] += xy, acc[TIO_SUM_ABS] += ab;                        \
        acc[TIO_SUM_MAX] = mx > acc[TIO_SUM_MAX] ? mx : acc[TIO_SUM_MAX];                                  \
        return at;                                                                                         \
    }
TIO_ICMP_DIRECT(tio_icmp_direct_u8, uint8_t)
TIO_ICMP_DIRECT(tio_icmp_direct_i8, int8_t)

typedef struct {
    const char *ref, *test;
    int type;
    int32_t zp, lo, hi;
    int64_t rs[3], ts[3], shape[3];
    int64_t pieces, piece;
    int threads, rowmode;
    int64_t *out;
} tio_icmp_job;

static int32_t tio_icmp_load(int16_t *dst, const char *src, int64_t n, int64_t step, const tio_icmp_job *job)
{
    return job->type == TIO_U8 ? tio_icmp_u8(dst, src, n, step, job->zp, job->lo, job->hi)
                               : tio_icmp_i8(dst, src, n, step, job->zp, job->lo, job->hi);
}

static void tio_icmp_slab(const tio_icmp_job *job, int64_t lo, int64_t hi, int64_t *sums)
{
    int16_t xbuf[TIO_ICMP_CHUNK], ybuf[TIO_ICMP_CHUNK];
    const int64_t c = job->shape[1], n = job->shape[2];
    int64_t limits = 0;
    if (job->rowmode) {
        for (int64_t item = lo; item < hi; item++) {
            int64_t i, ch, start, stop;
            tio_cmp_item(item, c, job->pieces, job->piece, n, &i, &ch, &start, &stop);
            const char *rp = job->ref + i * job->rs[0] + ch * job->rs[1];
            const char *tp = job->test + i * job->ts[0] + ch * job->ts[1];
            int64_t acc[TIO_SUMS] = {0};
            for (int64_t k = start; k < stop; k += TIO_ICMP_CHUNK) {
                int64_t m = stop - k < TIO_ICMP_CHUNK ? stop - k : TIO_ICMP_CHUNK;
                if (job->rs[2] == 1 && job->ts[2] == 1) {
                    limits += job->type == TIO_U8
                                  ? tio_icmp_direct_u8(acc, (const uint8_t *)rp + k, (const uint8_t *)tp + k, m,
                                                       job->zp, job->lo, job->hi)
                                  : tio_icmp_direct_i8(acc, (const int8_t *)rp + k, (const int8_t *)tp + k, m,
                                                       job->zp, job->lo, job->hi);
                    continue;
                }
                tio_icmp_load(xbuf, rp + k * job->rs[2], m, job->rs[2], job);
                limits += tio_icmp_load(ybuf, tp + k * job->ts[2], m, job->ts[2], job);
                tio_icmp_row(acc, xbuf, ybuf, m);
            }
            for (int s = 0; s < TIO_SUM_MAX; s++) /* the sums; the max below */
                sums[s * c + ch] += acc[s];
            sums[TIO_SUM_MAX * c + ch] =
                acc[TIO_SUM_MAX] > sums[TIO_SUM_MAX * c + ch] ? acc[TIO_SUM_MAX] : sums[TIO_SUM_MAX * c + ch];
        }
    } else {
        for (int64_t i = lo; i < hi; i++) {
            const char *rp = job->ref + i * job->rs[0], *tp = job->test + i * job->ts[0];
            for (int64_t k = 0; k < c; k += TIO_ICMP_CHUNK) {
                int64_t m = c - k < TIO_ICMP_CHUNK ? c - k : TIO_ICMP_CHUNK;
                tio_icmp_load(xbuf, rp + k * job->rs[1], m, job->rs[1], job);
                limits += tio_icmp_load(ybuf, tp + k * job->ts[1], m, job->ts[1], job);
                tio_icmp_channels(sums, c, k, xbuf, ybuf, m);
            }
        }
    }
    sums[TIO_SUMS * c] += limits;
}

static void tio_icmp_range(void *ctx, int64_t lo, int64_t hi)
{
    const tio_icmp_job *job = (const tio_icmp_job *)ctx;
    int64_t items = job->rowmode ? job->shape[0] * job->shape[1] * job->pieces : job->shape[0];
    for (int64_t t = lo; t < hi; t++)
        tio_icmp_slab(job, items * t / job->threads, items * (t + 1) / job->threads,
                      job->out + t * TIO_SUMS_BLOCK(job->shape[1]));
}

int tio_compare_codes(const void *ref, const int64_t *ref_strides, const void *test, const int64_t *test_strides,
                      int type, int64_t zero_point, const int64_t *shape, void *out, int threads)
{
    tio_icmp_job job;
    if (type != TIO_U8 && type != TIO_I8)
        return -1;
    job.lo = type == TIO_I8 ? -128 : INT32_MIN;
    job.hi = type == TIO_I8 ? 127 : 255;
    if (zero_point < (type == TIO_I8 ? -128 : 0) || zero_point > job.hi)
        return -1; /* |q - zp| <= 255 needs the zero point within the type's range */
    if (shape[0] < 0 || shape[1] < 1 || shape[2] < 0)
        return -1;
    job.ref = (const char *)ref, job.test = (const char *)test;
    job.type = type;
    job.zp = (int32_t)zero_point;
    memcpy(job.rs, ref_strides, sizeof job.rs);
    memcpy(job.ts, test_strides, sizeof job.ts);
    memcpy(job.shape, shape, sizeof job.shape);
    if (threads < 1)
        threads = 1;
    job.rowmode = shape[2] != 1;
    job.piece = ref_strides[2] == 1 && test_strides[2] == 1 ? TIO_CMP_PIECE : TIO_CMP_TILE;
    job.pieces = job.rowmode ? (shape[2] + job.piece - 1) / job.piece : 1;
    job.threads = threads;
    job.out = (int64_t *)out;
    int64_t items = job.rowmode ? shape[0] * shape[1] * job.pieces : shape[0];
    if (items == 0)
        return 0;
    int64_t bytes = shape[0] * shape[1] * shape[2] * (int64_t)2; /* as much work as moving 2 B/element */
    tio_parallel(tio_icmp_range, &job, threads, threads, bytes);
    return 0;
}
