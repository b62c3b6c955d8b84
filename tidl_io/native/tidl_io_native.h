/* tidl-io native kernels: plain C99 + pthreads, loaded with ctypes (no Python.h).
 *
 * The Python side (tidl_io/native/__init__.py) validates every geometry before a call: the
 * kernels trust shapes, strides (in BYTES, any sign) and types. No kernel allocates memory.
 * Element type codes are TIDL's (ElementType) plus TIO_F64 for float64 sources.
 */
#ifndef TIDL_IO_NATIVE_H
#define TIDL_IO_NATIVE_H

#include <stddef.h>
#include <stdint.h>

#define TIO_ABI 1
#define TIO_MAXDIM 8

enum tio_type { TIO_U8 = 0, TIO_I8, TIO_U16, TIO_I16, TIO_U32, TIO_I32, TIO_F32, TIO_U64, TIO_I64, TIO_F64 };

#if defined(__GNUC__)
#define TIO_EXPORT __attribute__((visibility("default")))
#else
#define TIO_EXPORT
#endif

/* One portable build at full speed on x86-64: the row kernels are compiled for several ISAs and
 * the loader picks one at load time (ifunc). Elsewhere (aarch64: NEON is baseline) plain. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__) \
    && !defined(TIO_NO_CLONES)
#define TIO_CLONES __attribute__((target_clones("avx2", "sse4.1", "default")))
/* and the register-tile transposes have an AVX2 variant chosen at run time (copy.c) */
#define TIO_X86_DISPATCH 1
#else
#define TIO_CLONES
#endif
/* The AVX-512 kernels (avx512.c, ISA level 3): in builds with run-time dispatch, and in the SIMDe build
 * (build.py's simde=True: -DTIO_SIMDE -DTIO_NO_CLONES, the same intrinsics from SIMDe's portable
 * headers, level 3 on any CPU; no AVX2 kernels there, so its level 2 runs the SSE2 / NEON ones) */
#if defined(TIO_X86_DISPATCH) || defined(TIO_SIMDE)
#define TIO_X512 1
/* the 2-4 lane uint8 deinterleave (copy.c's tio_deint*_uint8_t): dst planes dl bytes apart */
void tio_x512_deint_u8(char *D, int64_t dl, const char *S, int64_t n, int lanes);
/* the one-byte transpose block of copy.c's tio_block for ni a multiple of 64 rows */
void tio_x512_block_u8(char *D, int64_t db, const char *S, int64_t sa, int64_t ni, int64_t nj);
#endif

/* cpu.c: the ISA level in use (tio_set_isa: 0 portable, 1 SSE2 / NEON, 2 AVX2, 3 AVX-512 (F, BW, VL,
 * VBMI); the CPU's best by default), whether hand-written vector kernels may run at all (level >= 1), and those of AVX2 (x86-64) */
int tio_isa_level(void);
int tio_simd_on(void);
#if defined(TIO_X86_DISPATCH)
int tio_cpu_avx2(void);
int tio_cpu_avx2_fma(void);
#endif
/* cpu.c: parameters chosen from the CPU's caches at load time: the in-place square transpose's block
 * (cells of `cell` bytes), the output bytes from which transposes store whole lines non-temporally */
int64_t tio_sq_tile(int64_t cell);
int64_t tio_nt_min(void);
int64_t tio_l2_size(void);
int64_t tio_line_size(void); /* the data cache line (bytes) */
int64_t tio_split_min(void); /* bytes moved up to which plain moves run on one thread */

/* Dequantizing by a fixed divisor b without a divider: with y = RN(1/b) (float32, normal), the
 * quotient a/b of a float32 `a` is approximated by RN(a * y), and one FMA step corrects it from the
 * remainder a - b * q (exact in an FMA). For every float32 significand of b and every integer |a| <= 2**16
 * this equals the float32 division RN(a / b): tools/prove_dequantize.c checks all 2**38 pairs (the
 * result scales exactly with powers of two of a and of b while nothing is subnormal, so the pairs of
 * odd |a| < 2**16 and b in [1, 2) cover every |a| <= 2**16 and every b = 2**E * [1, 2), |E| <= 100).
 * Round to nearest even (the default mode) is assumed, as everywhere in this library. */
static inline float tio_div_by_inverse(float a, float b, float y)
{
    float q = a * y;
    float r = __builtin_fmaf(-b, q, a);
    return __builtin_fmaf(r, y, q);
}
#define TIO_DIV_FMA_MAX_ABS ((int64_t)1 << 16)   /* |a| covered by the proof */

/* threads.c: run fn(ctx, lo, hi) over [0, n) split between up to `threads` threads (the caller's
 * thread and others created and joined, never spinning), in chunks that each takes in turn: fn may be
 * called several times per thread, on any sub-ranges that together cover [0, n) once. */
typedef void (*tio_range_fn)(void *ctx, int64_t lo, int64_t hi);
void tio_parallel(tio_range_fn fn, void *ctx, int64_t n, int threads, int64_t bytes);

/* An N-d strided walk: decode a flat outer index into byte offsets. */
typedef struct {
    int ndim;                   /* outer axes (the inner row is handled by the kernel) */
    int64_t shape[TIO_MAXDIM];
    int64_t a_strides[TIO_MAXDIM];
    int64_t b_strides[TIO_MAXDIM];
} tio_walk;

/* Walking work items lo..hi-1, `pieces` items per outer index: the outer index is decoded once
 * and then stepped like an odometer. A division per item costs more than the row itself when rows
 * are short (224 elements of a padded image row: ~40 % of a pack). */
typedef struct {
    int64_t idx[TIO_MAXDIM];
    int64_t a, b;      /* byte offsets of the current outer index */
    int64_t piece;     /* 0 .. pieces-1 within it */
} tio_cursor;

static inline void tio_cursor_start(const tio_walk *w, int64_t item, int64_t pieces, tio_cursor *c)
{
    int64_t index = item / pieces;
    c->piece = item % pieces;
    c->a = c->b = 0;
    for (int k = w->ndim - 1; k >= 0; k--) {
        c->idx[k] = index % w->shape[k];
        index /= w->shape[k];
        c->a += c->idx[k] * w->a_strides[k];
        c->b += c->idx[k] * w->b_strides[k];
    }
}

static inline void tio_cursor_next(const tio_walk *w, int64_t pieces, tio_cursor *c)
{
    if (++c->piece < pieces)
        return;
    c->piece = 0;
    for (int k = w->ndim - 1; k >= 0; k--) {
        c->a += w->a_strides[k];
        c->b += w->b_strides[k];
        if (++c->idx[k] < w->shape[k])
            return;
        c->a -= c->idx[k] * w->a_strides[k];
        c->b -= c->idx[k] * w->b_strides[k];
        c->idx[k] = 0;
    }
}

TIO_EXPORT int tio_abi(void);
/* Switch the hand-written vector kernels that are picked at run time (AVX2 and NEON quantize rows, FMA
 * dequantize rows, AVX2 transpose tiles) off (0) or on (1), for every later call: results are the same
 * either way (the tests run both); the portable loops are slower. */
TIO_EXPORT void tio_set_simd(int on);
TIO_EXPORT const char *tio_source_hash(void);
TIO_EXPORT const char *tio_isa(void);
/* cpu.c: use at most ISA level `level` (0 portable, 1 SSE2 / NEON, 2 AVX2, 3 AVX-512; < 0 or above the CPU's: its
 * best) for every later call; returns the level set. tio_set_simd(0) is tio_set_isa(0), (1) the best. */
TIO_EXPORT int tio_set_isa(int level);
/* cpu.c: "key=value ..." of what was found and chosen at load time (levels, caches, blocking) */
TIO_EXPORT const char *tio_tuning(void);
/* copy.c: source rows per block of the buffered transposes (32 or 64, from L2; native_info's blocking) */
TIO_EXPORT int64_t tio_tr_cols(void);

/* quant.c */
TIO_EXPORT int64_t tio_quantize(void *dst, int dst_type, const void *src, int src_type, int ndim,
                                const int64_t *shape, const int64_t *dst_strides, const int64_t *src_strides,
                                double scale, double zero_point, double lo, double hi, int nearest,
                                int threads);
TIO_EXPORT int tio_dequantize(float *dst, const void *src, int src_type, int ndim, const int64_t *shape,
                              const int64_t *dst_strides, const int64_t *src_strides, float scale,
                              int64_t zero_point, int threads);
/* tio_quantize with every argument but the addresses and the thread count prepared once in a struct
 * (tidl_io/native's quantize_call): a small frame's pack converts 4 call arguments instead of 14 */
typedef struct {
    int dst_type, src_type, ndim, nearest;
    int64_t shape[TIO_MAXDIM], dst_strides[TIO_MAXDIM], src_strides[TIO_MAXDIM];
    double scale, zero_point, lo, hi;
} tio_qargs;
TIO_EXPORT int64_t tio_quantize_prepared(void *dst, const void *src, const tio_qargs *args, int threads);
/* which row kernel tio_dequantize uses for these parameters (quant.c's TIO_DEQ_*), -1 if refused */
TIO_EXPORT int tio_dequantize_kind(int src_type, float scale, int64_t zero_point);

/* copy.c */
TIO_EXPORT int tio_copy(void *dst, const void *src, int64_t itemsize, int ndim, const int64_t *shape,
                        const int64_t *dst_strides, const int64_t *src_strides, int threads);
TIO_EXPORT int tio_square_inplace(void *data, int64_t cell_bytes, int64_t batch, int64_t n, int threads);

/* The comparison sums of one block: TIO_SUMS rows of `channels` values, in this order, then the count
 * of test codes at their type's limit: TIO_SUMS_BLOCK(channels) values (Python: tidl_io.native.SUMS,
 * pinned to this enum by tests/test_trace_metrics.py) */
enum tio_sum { TIO_SUM_ERR2 = 0, TIO_SUM_REF2, TIO_SUM_TEST2, TIO_SUM_CROSS, TIO_SUM_ABS, TIO_SUM_MAX, TIO_SUMS };
#define TIO_SUMS_BLOCK(channels) (TIO_SUMS * (channels) + 1)

/* stats.c: the comparison sums of ref and test (float32, or 8/16-bit codes with scale and zero point)
 * over a (outer, channels, inner) walk, into `threads` zeroed blocks of TIO_SUMS_BLOCK(channels) doubles */
TIO_EXPORT int tio_compare(const void *ref, int ref_type, float ref_scale, int64_t ref_zero_point,
                           const int64_t *ref_strides, const void *test, int test_type, float test_scale,
                           int64_t test_zero_point, const int64_t *test_strides, const int64_t *shape,
                           double *out, int threads);
/* stats.c: the same sums, exact in int64, of two arrays of 8-bit codes of one type (TIO_U8 or TIO_I8)
 * with one zero point (within the type's range), over the centred codes q - zero_point: `threads`
 * zeroed blocks of TIO_SUMS_BLOCK(channels) int64 at `out` (the real sums are these / scale^2, or / scale for abs, max) */
TIO_EXPORT int tio_compare_codes(const void *ref, const int64_t *ref_strides, const void *test,
                                 const int64_t *test_strides, int type, int64_t zero_point, const int64_t *shape,
                                 void *out, int threads);

#endif
