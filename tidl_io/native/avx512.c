/* AVX-512 kernels (VBMI byte permutes), picked at run time at ISA level 3 (cpu.c: avx512f, bw, vl and
 * vbmi, with the OS saving the zmm state). The same source compiles against SIMDe (the portable
 * implementations of the same intrinsics, Debian's libsimde-dev) when TIO_SIMDE is defined: build.py's
 * simde build, which the tests run bit for bit against NumPy on any CPU (tests/test_native_simde.py).
 *
 * tio_x512_deint_u8: the 2-, 3- and 4-lane uint8 deinterleave of copy.c (an HWC camera frame -> planar):
 * 32 pixels at a time, each plane's 32 bytes gathered from the 2-4 source ymm registers by vpermt2b
 * (indices 0-63 across two registers) and, for 3 lanes, a masked vpermb from the third (AVX-512 VBMI
 * with VL). Used only in builds with -DTIO_X512_DEINT (the SIMDe build): copy.c says why.
 * tio_x512_block_u8: the one-byte transpose blocks (copy.c's tio_block at level 3).
 */
#include "tidl_io_native.h"

#if defined(TIO_X512)

#if defined(TIO_SIMDE)
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/x86/avx512.h>
#define TIO_X512_FN
typedef simde__mmask32 tio_mask32; /* (SIMDe's aliases leave out the mask types) */
typedef simde__mmask64 tio_mask64;
#else
#include <immintrin.h>
#define TIO_X512_FN __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi")))
typedef __mmask64 tio_mask64;
typedef __mmask32 tio_mask32;
#endif

/* the byte indices of lane k of `lanes` (2-4) for output bytes j = 0..63: lanes * j + k, modulo 128; filled
 * at load time (built per call they cost as much as the permutes of a 1920-pixel row) */
static uint8_t tio_x512_idx[5][4][64];

__attribute__((constructor)) static void tio_x512_init(void)
{
    for (int lanes = 2; lanes <= 4; lanes++)
        for (int k = 0; k < lanes; k++)
            for (int j = 0; j < 64; j++)
                tio_x512_idx[lanes][k][j] = (uint8_t)((lanes * j + k) & 63);
}

TIO_X512_FN void tio_x512_deint_u8(char *D, int64_t dl, const char *S, int64_t n, int lanes)
{
    __m256i idx[4];
    for (int k = 0; k < lanes; k++)
        idx[k] = _mm256_loadu_si256((const void *)tio_x512_idx[lanes][k]);
    const uint8_t *s = (const uint8_t *)S;
    int64_t j = 0;
    if (lanes == 2) {
        for (; j + 32 <= n; j += 32, s += 64) {
            __m256i a = _mm256_loadu_si256((const void *)s), b = _mm256_loadu_si256((const void *)(s + 32));
            _mm256_storeu_si256((void *)(D + j), _mm256_permutex2var_epi8(a, idx[0], b));
            _mm256_storeu_si256((void *)(D + dl + j), _mm256_permutex2var_epi8(a, idx[1], b));
        }
    } else if (lanes == 3) {
        /* output bytes j whose source 3j + k is past 63 come from the third register: j >= 22, 21, 21 */
        const tio_mask32 high[3] = {(tio_mask32)(~0u << 22), (tio_mask32)(~0u << 21), (tio_mask32)(~0u << 21)};
        for (; j + 32 <= n; j += 32, s += 96) {
            __m256i a = _mm256_loadu_si256((const void *)s), b = _mm256_loadu_si256((const void *)(s + 32));
            __m256i c = _mm256_loadu_si256((const void *)(s + 64));
            for (int k = 0; k < 3; k++) {
                __m256i r = _mm256_permutex2var_epi8(a, idx[k], b);
                r = _mm256_mask_permutexvar_epi8(r, high[k], idx[k], c);
                _mm256_storeu_si256((void *)(D + k * dl + j), r);
            }
        }
    } else {
        const tio_mask32 upper = (tio_mask32)0xFFFF0000u; /* bytes 16-31: from the last two */
        for (; j + 32 <= n; j += 32, s += 128) {
            __m256i a = _mm256_loadu_si256((const void *)s), b = _mm256_loadu_si256((const void *)(s + 32));
            __m256i c = _mm256_loadu_si256((const void *)(s + 64));
            __m256i d = _mm256_loadu_si256((const void *)(s + 96));
            for (int k = 0; k < 4; k++) {
                __m256i lo = _mm256_permutex2var_epi8(a, idx[k], b), hi = _mm256_permutex2var_epi8(c, idx[k], d);
                _mm256_storeu_si256((void *)(D + k * dl + j), _mm256_mask_blend_epi8(upper, lo, hi));
            }
        }
    }
    for (; j < n; j++, s += lanes) /* the last pixels one by one */
        for (int k = 0; k < lanes; k++)
            ((uint8_t *)D)[k * dl + j] = s[k];
}

/* d[i * db + j] = s[j * sa + i] for i < ni (a multiple of 64), j < nj (bytes, strides in bytes): 16 source
 * rows of 64 bytes per step, each zmm register's four 128-bit lanes transposed as four 16 x 16 tiles at
 * once by the unpack rounds of copy.c's SSE2 tio_tr16_8 (which work within lanes); lane L of result row m
 * is destination row 16 L + m. A quarter of the SSE2 tiles' loads and shuffles per byte. */
TIO_X512_FN void tio_x512_block_u8(char *D, int64_t db, const char *S, int64_t sa, int64_t ni, int64_t nj)
{
    uint8_t *d = (uint8_t *)D;
    const uint8_t *s = (const uint8_t *)S;
    int64_t nj16 = nj - nj % 16;
    for (int64_t i = 0; i + 64 <= ni; i += 64) {
        for (int64_t j = 0; j < nj16; j += 16) {
            __m512i a[16], b[16], c[16];
            for (int k = 0; k < 16; k++)
                a[k] = _mm512_loadu_si512((const void *)(s + (j + k) * sa + i));
            for (int k = 0; k < 8; k++) {
                b[2 * k] = _mm512_unpacklo_epi8(a[2 * k], a[2 * k + 1]);
                b[2 * k + 1] = _mm512_unpackhi_epi8(a[2 * k], a[2 * k + 1]);
            }
            for (int g = 0; g < 4; g++) {
                c[4 * g] = _mm512_unpacklo_epi16(b[4 * g], b[4 * g + 2]);
                c[4 * g + 1] = _mm512_unpackhi_epi16(b[4 * g], b[4 * g + 2]);
                c[4 * g + 2] = _mm512_unpacklo_epi16(b[4 * g + 1], b[4 * g + 3]);
                c[4 * g + 3] = _mm512_unpackhi_epi16(b[4 * g + 1], b[4 * g + 3]);
            }
            for (int h = 0; h < 2; h++)
                for (int m = 0; m < 4; m++) {
                    b[8 * h + 2 * m] = _mm512_unpacklo_epi32(c[8 * h + m], c[8 * h + 4 + m]);
                    b[8 * h + 2 * m + 1] = _mm512_unpackhi_epi32(c[8 * h + m], c[8 * h + 4 + m]);
                }
            for (int k = 0; k < 16; k++) {
                __m512i r = (k % 2 == 0) ? _mm512_unpacklo_epi64(b[k / 2], b[8 + k / 2])
                                         : _mm512_unpackhi_epi64(b[k / 2], b[8 + k / 2]);
                uint8_t *at = d + (i + k) * db + j;
                _mm_storeu_si128((__m128i *)at, _mm512_castsi512_si128(r));
                _mm_storeu_si128((__m128i *)(at + 16 * db), _mm512_extracti32x4_epi32(r, 1));
                _mm_storeu_si128((__m128i *)(at + 32 * db), _mm512_extracti32x4_epi32(r, 2));
                _mm_storeu_si128((__m128i *)(at + 48 * db), _mm512_extracti32x4_epi32(r, 3));
            }
        }
        for (int64_t j = nj16; j < nj; j++)
            for (int64_t k = i; k < i + 64; k++)
                d[k * db + j] = s[j * sa + k];
    }
}

#else
typedef int tio_x512_unused; /* (ISO C: no empty translation unit) */
#endif
