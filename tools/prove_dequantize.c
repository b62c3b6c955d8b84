/* Exhaustive check of the native dequantize kernel's division-free quotient (tio_div_by_inverse in
 * tidl_io/native/tidl_io_native.h) against the float32 division it replaces:
 *
 *     for every float32 b in [1, 2) (2**23 significands) and every odd integer a in [1, 2**16):
 *         tio_div_by_inverse(a, b, RN(1/b)) == RN(a / b)
 *
 * Why that covers every case the kernel takes (|a| <= 2**16, b = 2**E * m with m in [1, 2), |E| <= 100):
 * in that range nothing that is rounded is subnormal or overflows, so each rounding commutes with a
 * power-of-two factor. b = 2**E * m gives y = 2**-E * RN(1/m) (y >= 2**-101, normal), q = a * y scaled by
 * 2**-E, the remainder r = a - b * q unchanged (an integer minus a product: 0 or at least 2**-47 in
 * magnitude, exact in the FMA), r * y exact inside the second FMA, and the result (in [2**-101, 2**117])
 * scaled by 2**-E, like a / b. a = 2**k * a_odd scales q, r and the result by 2**k. RN is odd-symmetric,
 * so -a mirrors a, and a = 0 gives +0 like the division. (Round to nearest even, the default mode, is
 * assumed throughout, as NumPy's results are.)
 *
 *     cc -O3 -ffp-contract=off -pthread -I tidl_io/native tools/prove_dequantize.c -o prove -lm
 *     ./prove            # all 2**23 significands: ~20 s on two cores with -march=native (AVX2 + FMA),
 *                        # much longer where fmaf is a library call
 *     ./prove --stride 97 --plain   # a sample, with the uncorrected product: shows that the check can fail
 *
 * (tests/test_native.py builds it as a shared library with -Dmain=prove_dequantize_main and runs a
 * sample of both checks; CI runs the whole proof.)
 *
 * Exit status 0 when no pair differs, 1 otherwise (the first few are printed).
 */
#include "tidl_io_native.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define A_MAX (1 << 16)
#define THREADS 64

static int plain = 0;        /* --plain: check RN(a * y) alone (known to differ) */
static uint32_t stride = 1;  /* --stride N: every N-th significand only */
static int nthreads = 2;

typedef struct {
    uint32_t first, step;
    uint64_t checked, bad;
} part;

static float from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static float a_odd[A_MAX / 2];

static void *run(void *arg)
{
    part *p = (part *)arg;
    for (uint32_t m = p->first; m < (1u << 23); m += p->step) {
        const float b = from_bits(0x3f800000u | m), y = 1.0f / b;
        int bad = 0;
        if (plain) {
            for (int i = 0; i < A_MAX / 2; i++)
                bad |= a_odd[i] * y != a_odd[i] / b;
        } else {
            for (int i = 0; i < A_MAX / 2; i++)
                bad |= tio_div_by_inverse(a_odd[i], b, y) != a_odd[i] / b;
        }
        p->checked += A_MAX / 2;
        if (bad) {
            for (int i = 0; i < A_MAX / 2; i++) {
                float got = plain ? a_odd[i] * y : tio_div_by_inverse(a_odd[i], b, y), want = a_odd[i] / b;
                if (got != want && p->bad++ < 3)
                    fprintf(stderr, "differs: a = %d, b = %.9g (0x%08x): %.9g, division %.9g\n", 2 * i + 1,
                            (double)b, 0x3f800000u | m, (double)got, (double)want);
            }
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    plain = 0, stride = 1, nthreads = 2; /* (tests call this repeatedly, built as a shared library) */
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--plain"))
            plain = 1;
        else if (!strcmp(argv[i], "--stride") && i + 1 < argc)
            stride = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            nthreads = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--stride N] [--threads N] [--plain]\n", argv[0]);
            return 2;
        }
    }
    if (stride < 1 || nthreads < 1 || nthreads > THREADS) {
        fprintf(stderr, "--stride must be >= 1 and --threads 1..%d\n", THREADS);
        return 2;
    }
    for (int i = 0; i < A_MAX / 2; i++)
        a_odd[i] = (float)(2 * i + 1);
    pthread_t ids[THREADS];
    part parts[THREADS];
    for (int t = 0; t < nthreads; t++) {
        parts[t] = (part){(uint32_t)t * stride, (uint32_t)nthreads * stride, 0, 0};
        if (pthread_create(&ids[t], NULL, run, &parts[t]) != 0) {
            fprintf(stderr, "cannot start a thread\n");
            return 2;
        }
    }
    uint64_t checked = 0, bad = 0;
    for (int t = 0; t < nthreads; t++) {
        pthread_join(ids[t], NULL);
        checked += parts[t].checked;
        bad += parts[t].bad;
    }
    fflush(stderr);
    printf("%s: %llu pairs (odd a < 2**16, %s of b in [1, 2)), %llu differ from the float32 division\n",
           plain ? "RN(a * y) alone" : "tio_div_by_inverse", (unsigned long long)checked,
           stride == 1 ? "every significand" : "a sample", (unsigned long long)bad);
    fflush(stdout);
    return bad ? 1 : 0;
}
