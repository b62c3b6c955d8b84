/* Two-way (or n-way) splitting of a range over threads; library identity. */
#include "tidl_io_native.h"

#include <pthread.h>

#ifndef TIDL_IO_SOURCE_HASH
#define TIDL_IO_SOURCE_HASH "unknown"
#endif

/* Below this many bytes moved, waking a second thread (~60 us measured) costs more than it saves. */
#define TIO_THREAD_MIN_BYTES ((int64_t)8 << 20)
#define TIO_MAX_THREADS 8

int tio_abi(void) { return TIO_ABI; }
const char *tio_source_hash(void) { return TIDL_IO_SOURCE_HASH; }

const char *tio_isa(void)
{
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(TIO_NO_CLONES)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return "x86-64 avx2 fma";
    if (__builtin_cpu_supports("avx2"))
        return "x86-64 avx2";
    if (__builtin_cpu_supports("sse4.1"))
        return "x86-64 sse4.1";
    return "x86-64 sse2";
#elif defined(__x86_64__) && defined(__FMA__)
    return "x86-64 fma";
#elif defined(__x86_64__)
    return "x86-64";
#elif defined(__aarch64__)
    return "aarch64 neon fma";
#else
    return "portable";
#endif
}

static int tio_simd = 1;

void tio_set_simd(int on) { __atomic_store_n(&tio_simd, on != 0, __ATOMIC_RELAXED); }
int tio_simd_on(void) { return __atomic_load_n(&tio_simd, __ATOMIC_RELAXED); }

#if defined(TIO_X86_DISPATCH)
/* -1 until checked; the check is idempotent, so threads racing on it store the same value */
static int tio_has_avx2 = -1, tio_has_fma = -1;

static void tio_cpu_check(void)
{
    if (__atomic_load_n(&tio_has_fma, __ATOMIC_ACQUIRE) >= 0)
        return;
    __builtin_cpu_init();
    __atomic_store_n(&tio_has_avx2, __builtin_cpu_supports("avx2"), __ATOMIC_RELAXED);
    __atomic_store_n(&tio_has_fma, __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"),
                     __ATOMIC_RELEASE);
}

int tio_cpu_avx2(void)
{
    tio_cpu_check();
    return tio_simd_on() && __atomic_load_n(&tio_has_avx2, __ATOMIC_RELAXED);
}

int tio_cpu_avx2_fma(void)
{
    tio_cpu_check();
    return tio_simd_on() && __atomic_load_n(&tio_has_fma, __ATOMIC_RELAXED);
}
#endif

typedef struct {
    tio_range_fn fn;
    void *ctx;
    int64_t lo, hi;
} tio_job;

static void *tio_run_job(void *arg)
{
    tio_job *job = (tio_job *)arg;
    job->fn(job->ctx, job->lo, job->hi);
    return NULL;
}

void tio_parallel(tio_range_fn fn, void *ctx, int64_t n, int threads, int64_t bytes)
{
    if (threads > TIO_MAX_THREADS)
        threads = TIO_MAX_THREADS;
    if (threads > n)
        threads = (int)n;
    if (threads <= 1 || bytes < TIO_THREAD_MIN_BYTES) {
        if (n > 0)
            fn(ctx, 0, n);
        return;
    }
    pthread_t ids[TIO_MAX_THREADS];
    tio_job jobs[TIO_MAX_THREADS];
    int started[TIO_MAX_THREADS] = {0};
    for (int t = 0; t < threads; t++) {
        jobs[t].fn = fn;
        jobs[t].ctx = ctx;
        jobs[t].lo = n * t / threads;
        jobs[t].hi = n * (t + 1) / threads;
    }
    for (int t = 1; t < threads; t++)
        started[t] = pthread_create(&ids[t], NULL, tio_run_job, &jobs[t]) == 0;
    fn(ctx, jobs[0].lo, jobs[0].hi);
    for (int t = 1; t < threads; t++) {
        if (started[t])
            pthread_join(ids[t], NULL);
        else
            fn(ctx, jobs[t].lo, jobs[t].hi); /* no thread: do its part here */
    }
}
