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
#if defined(TIO_SIMDE) && defined(__x86_64__)
    return "x86-64 simde-avx512";
#elif defined(TIO_SIMDE) && defined(__aarch64__)
    return "aarch64 neon fma simde-avx512";
#elif defined(TIO_SIMDE)
    return "portable simde-avx512";
#elif defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(TIO_NO_CLONES)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl")
        && __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("fma"))
        return "x86-64 avx512 avx2 fma";
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

/* The threads take chunks of the range in turn from a shared counter rather than a fixed share each:
 * on a shared machine a thread that is not scheduled for a while (another process on its CPU) then
 * leaves its chunks to the others instead of holding up the whole call. Measured on the 2-vCPU Intel
 * Xeon with other processes running: a 4095 x 4097 float32 transpose on 2 threads took 1.3-2.2x a copy
 * with fixed halves, 1.15-1.25x with chunks (one thread alone: 1.1-1.25x). */
#define TIO_CHUNKS_PER_THREAD 8

typedef struct {
    tio_range_fn fn;
    void *ctx;
    int64_t n, chunk;
    int64_t next; /* the first item not yet taken (atomic) */
} tio_shared;

static void *tio_take_chunks(void *arg)
{
    tio_shared *sh = (tio_shared *)arg;
    for (;;) {
        int64_t lo = __atomic_fetch_add(&sh->next, sh->chunk, __ATOMIC_RELAXED);
        if (lo >= sh->n)
            return NULL;
        sh->fn(sh->ctx, lo, sh->n - lo < sh->chunk ? sh->n : lo + sh->chunk);
    }
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
    tio_shared sh = {fn, ctx, n, 0, 0};
    sh.chunk = n / ((int64_t)threads * TIO_CHUNKS_PER_THREAD);
    if (sh.chunk < 1)
        sh.chunk = 1;
    pthread_t ids[TIO_MAX_THREADS];
    int started[TIO_MAX_THREADS] = {0};
    for (int t = 1; t < threads; t++)
        started[t] = pthread_create(&ids[t], NULL, tio_take_chunks, &sh) == 0;
    tio_take_chunks(&sh); /* (a thread that could not be created leaves its chunks to this one) */
    for (int t = 1; t < threads; t++)
        if (started[t])
            pthread_join(ids[t], NULL);
}
