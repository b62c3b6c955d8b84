/* AVX-512 kernels (VBMI byte permutes), picked at run time at ISA level 3 (cpu.c: avx512f, bw, vl and
 * vbmi, with the OS saving the zmm state). The same source compiles against SIMDe (the portable
 * implementations of the same intrinsics, Debian's libsimde-dev) when TIO_SIMDE is defined: build.py's
 * simde build, which the tests run bit for bit against NumPy on any CPU (tests/test_native_simde.py).
 *
 * tio_x512_deint_u8: the 2-, 3- and 4-lane uint8 deinterleave of copy.c (an HWC camera frame -> planar):
 * 64 pixels at a time, each plane's 64 bytes gathered from the 2-4 source registers by vpermt2b
 * (indices 0-127 across two registers) and, for 3 lanes, a masked vpermb from the third.
 */
#include "tidl_io_native.h"

#if defined(TIO_X512)

#if defined(TIO_SIMDE)
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/x86/avx512.h>
#define TIO_X512_FN
typedef simde__mmask64 tio_mask64; /* (SIMDe's aliases leave out the mask types) */
#else
#include <immintrin.h>
#define TIO_X512_FN __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi")))
typedef __mmask64 tio_mask64;
#endif

/* the byte indices of lane k of `lanes` for output bytes j = 0..63: lanes * j + k, modulo 128 */
static void tio_x512_index(uint8_t idx[64], int lanes, int k)
{
    for (int j = 0; j < 64; j++)
        idx[j] = (uint8_t)((lanes * j + k) & 127);
}

TIO_X512_FN void tio_x512_deint_u8(char *D, int64_t dl, const char *S, int64_t n, int lanes)
{
    uint8_t raw[4][64];
    __m512i idx[4];
    for (int k = 0; k < lanes; k++) {
        tio_x512_index(raw[k], lanes, k);
        idx[k] = _mm512_loadu_si512((const void *)raw[k]);
    }
    const uint8_t *s = (const uint8_t *)S;
    int64_t j = 0, head = (int64_t)(-(uintptr_t)D & 63);
    /* the first pixels one by one up to a line bound of the first plane (the others too where the planes
       are whole lines apart): a 64-byte store across two lines costs two: HWC 1080p on the Intel Xeon, loaded: 1.57x a copy
       with every store split, 1.17-1.21x aligned) */
    head = head < n ? head : n;
    for (; j < head; j++, s += lanes)
        for (int k = 0; k < lanes; k++)
            ((uint8_t *)D)[k * dl + j] = s[k];
    if (lanes == 2) {
        for (; j + 64 <= n; j += 64, s += 128) {
            __m512i a = _mm512_loadu_si512((const void *)s), b = _mm512_loadu_si512((const void *)(s + 64));
            _mm512_storeu_si512((void *)(D + j), _mm512_permutex2var_epi8(a, idx[0], b));
            _mm512_storeu_si512((void *)(D + dl + j), _mm512_permutex2var_epi8(a, idx[1], b));
        }
    } else if (lanes == 3) {
        /* output bytes whose source 3j + k is past 127 come from the third register */
        tio_mask64 high[3];
        for (int k = 0; k < 3; k++) {
            uint64_t m = 0;
            for (int q = 0; q < 64; q++)
                if (3 * q + k >= 128)
                    m |= (uint64_t)1 << q;
            high[k] = (tio_mask64)m;
        }
        for (; j + 64 <= n; j += 64, s += 192) {
            __m512i a = _mm512_loadu_si512((const void *)s), b = _mm512_loadu_si512((const void *)(s + 64));
            __m512i c = _mm512_loadu_si512((const void *)(s + 128));
            for (int k = 0; k < 3; k++) {
                __m512i r = _mm512_permutex2var_epi8(a, idx[k], b);
                r = _mm512_mask_permutexvar_epi8(r, high[k], idx[k], c);
                _mm512_storeu_si512((void *)(D + k * dl + j), r);
            }
        }
    } else {
        const tio_mask64 upper = (tio_mask64)0xFFFFFFFF00000000ull; /* bytes 32-63: from the last two */
        for (; j + 64 <= n; j += 64, s += 256) {
            __m512i a = _mm512_loadu_si512((const void *)s), b = _mm512_loadu_si512((const void *)(s + 64));
            __m512i c = _mm512_loadu_si512((const void *)(s + 128));
            __m512i d = _mm512_loadu_si512((const void *)(s + 192));
            for (int k = 0; k < 4; k++) {
                __m512i lo = _mm512_permutex2var_epi8(a, idx[k], b), hi = _mm512_permutex2var_epi8(c, idx[k], d);
                _mm512_storeu_si512((void *)(D + k * dl + j), _mm512_mask_blend_epi8(upper, lo, hi));
            }
        }
    }
    for (; j < n; j++, s += lanes) /* the last pixels one by one */
        for (int k = 0; k < lanes; k++)
            ((uint8_t *)D)[k * dl + j] = s[k];
}

#else
typedef int tio_x512_unused; /* (ISO C: no empty translation unit) */
#endif
