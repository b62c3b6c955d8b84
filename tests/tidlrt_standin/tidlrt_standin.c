/*
 * tidlrt_standin.c -- a test double of TI's TIDL-RT C API (libvx_tidl_rt.so) for tidl-io's tests.
 *
 * Written from the facts in the project's spec (tidlrt.md, iobufdesc.md); no TI code. One source,
 * compiled once per layout family (tests/conftest.py, fixture `tidlrt_standin`):
 *
 *   -DSTANDIN_PARAMS_PA | _PB | _PC | _PD   sTIDLRT_Params_t shape P-a .. P-d   (exactly one)
 *   -DSTANDIN_TENSOR_T6                     sTIDLRT_Tensor_t T6 (else T4)
 *   -DSTANDIN_IO_8X | _90 | _L2 | _L3       io descriptor layout create accepts (exactly one;
 *                                           L2/L3: C7x core counts 1, 2 and 4, L3 also the 11.x container)
 *   -DSTANDIN_NO_SHARED                     no allocSharedMem/freeSharedMem/isSharedMem/getDdrStats
 *   -DSTANDIN_NO_SHARED_MEM                 no allocSharedMem/freeSharedMem/isSharedMem (pre-8.0 library)
 *   -DSTANDIN_BOARD                         a board build, failing as TI's 8.4 does without its devices:
 *                                           create runs appInit (opens /dev/mem, the vision_apps DMA heap,
 *                                           /dev/dma-buf-phys, /dev/rpmsg_ctrl0; failures printed, not
 *                                           returned), allocates in that heap (NULL: "MEM: ERROR: Alloc
 *                                           failed with status = errno") and writes there: SIGSEGV.
 *                                           allocSharedMem allocates in the heap too (no init: descriptor 0)
 *
 * Behaviour (TIDL-RT 11.01 as the spec describes it):
 * - create parses the io descriptor bytes here, in C, with one struct per io layout, and refuses
 *   what TIDL-RT refuses (size mismatch, NULL pointers) plus geometry it could not run;
 * - invoke matches user tensors by name (strncmp of 512 bytes), falling back to the index, checks
 *   them against the descriptor, then per tensor: zero copy (shared memory and the properties TIDL-RT
 *   compares), memcpy (same properties in user memory) or reformat (TIDL-RT's four conversion
 *   branches in float32: as is, scale, zero point, both; saturation, truncation);
 * - the "device" dequantizes the inputs, runs a built-in model (identity or ramp, the defaults of
 *   tidl_io's mock) in double, quantizes into the output buffers (round half to even) after filling
 *   their non-valid elements with poison, and fills PerfStats;
 * - allocSharedMem hands out dirty memory from a table of 128 blocks.
 * Every refusal returns a negative status and leaves a message in standin_last_error().
 * Test hooks (not TIDL-RT API): standin_last_error, standin_last_paths; environment variables
 * TIDLRT_STANDIN_MODEL, TIDLRT_STANDIN_INPUT_PADS, TIDLRT_STANDIN_CREATE_STATUS,
 * TIDLRT_STANDIN_INVOKE_STATUS, TIDLRT_STANDIN_SCRIBBLE_PARAMS, TIDLRT_STANDIN_SCRIBBLE_TENSOR.
 */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define STANDIN_CHECK(name, cond) typedef char standin_check_##name[(cond) ? 1 : -1]

#if (defined(STANDIN_PARAMS_PA) + defined(STANDIN_PARAMS_PB) + defined(STANDIN_PARAMS_PC) + \
     defined(STANDIN_PARAMS_PD)) != 1
#error "define exactly one of STANDIN_PARAMS_PA, _PB, _PC, _PD"
#endif
#if (defined(STANDIN_IO_8X) + defined(STANDIN_IO_90) + defined(STANDIN_IO_L2) + defined(STANDIN_IO_L3)) != 1
#error "define exactly one of STANDIN_IO_8X, _90, _L2, _L3"
#endif
#if defined(STANDIN_NO_SHARED) && !defined(STANDIN_NO_SHARED_MEM)
#define STANDIN_NO_SHARED_MEM
#endif

/* ---- TIDL-RT structs ---------------------------------------------------------------------- */

typedef struct {
    uint64_t cpIn_time_start, cpIn_time_end;
    uint64_t proc_time_start, proc_time_end;
    uint64_t cpOut_time_start, cpOut_time_end;
} sTIDLRT_PerfStats_t;
STANDIN_CHECK(perfstats_size, sizeof(sTIDLRT_PerfStats_t) == 48);

typedef int32_t (*standin_vprintf_t)(const char *format, va_list args);
typedef int32_t (*standin_writebin_t)(const char *name, void *addr, int32_t size, int32_t count);
typedef int32_t (*standin_readbin_t)(const char *name, void *addr, int32_t size);

#define STANDIN_STRING_SIZE 512

#if defined(STANDIN_PARAMS_PD)
typedef struct {
    void *netPtr;
    void *ioBufDescPtr;
    int32_t net_capacity;
    int32_t io_capacity;
    int32_t dumpNetInitBackupData;
    int32_t releaseIOTensorsAtCreate;
    int32_t computeChecksum;
    uint32_t flowCtrl;
    float quantRangeExpansionFactor;
    float quantRangeUpdateFactor;
    int targetPriority;
    float maxPreEmptDelay;
    uint32_t coreNum;
    int32_t coreStartIdx;
    int32_t forceNegativeTest;
    uint32_t enableCodeCoverage;
    int32_t traceLogLevel;
    int32_t traceWriteLevel;
    char traceBaseName[STANDIN_STRING_SIZE];
    char traceSubgraphName[STANDIN_STRING_SIZE];
    char tempBufferDir[STANDIN_STRING_SIZE];
    sTIDLRT_PerfStats_t *stats;
    standin_vprintf_t TIDLVprintf;
    standin_writebin_t TIDLWriteBinToFile;
    standin_readbin_t TIDLReadBinFromFile;
} sTIDLRT_Params_t;
STANDIN_CHECK(params_size, sizeof(sTIDLRT_Params_t) == 1648);
#else
typedef struct {
    void *netPtr;
    void *ioBufDescPtr;
    int32_t net_capacity;
    int32_t io_capacity;
    int32_t flowCtrl;
    int32_t traceLogLevel;
    int32_t traceWriteLevel;
    void *traceBaseName;
    float quantRangeExpansionFactor;
    float quantRangeUpdateFactor;
#if !defined(STANDIN_PARAMS_PA)
    float maxPreEmptDelay;
#endif
    standin_vprintf_t TIDLVprintf;
    standin_writebin_t TIDLWriteBinToFile;
    standin_readbin_t TIDLReadBinFromFile;
    sTIDLRT_PerfStats_t *stats;
#if !defined(STANDIN_PARAMS_PA)
    int targetPriority;
#endif
#if defined(STANDIN_PARAMS_PC)
    uint32_t coreNum;
#endif
} sTIDLRT_Params_t;
#if defined(STANDIN_PARAMS_PA)
STANDIN_CHECK(params_size, sizeof(sTIDLRT_Params_t) == 88);
#else
STANDIN_CHECK(params_size, sizeof(sTIDLRT_Params_t) == 104);
#endif
#endif

#if defined(STANDIN_TENSOR_T6)
#define STANDIN_NUM_DIMS 6
#define STANDIN_NUM_PITCH 5
enum { DIM_BATCH = 0, DIM_DIM1 = 1, DIM_DIM2 = 2, DIM_NUMCH = 3, DIM_HEIGHT = 4, DIM_WIDTH = 5 };
enum { PITCH_ROI = 0, PITCH_DIM1 = 1, PITCH_DIM2 = 2, PITCH_CHANNEL = 3, PITCH_LINE = 4 };
#else
#define STANDIN_NUM_DIMS 4
#define STANDIN_NUM_PITCH 3
enum { DIM_BATCH = 0, DIM_NUMCH = 1, DIM_HEIGHT = 2, DIM_WIDTH = 3 };
enum { PITCH_ROI = 0, PITCH_CHANNEL = 1, PITCH_LINE = 2 };
#endif

typedef struct {
    int8_t name[STANDIN_STRING_SIZE];
    int32_t elementType;
    int32_t numDim;
    int32_t dimValues[STANDIN_NUM_DIMS];
    int32_t pitch[STANDIN_NUM_PITCH];
    int32_t padValues[4]; /* L, R, T, B */
    void *ptr;
    int32_t dataOffset;
    uint32_t layout;
    int32_t zeroPoint;
    float scale;
    uint32_t memType;
#if defined(STANDIN_TENSOR_T6)
    int32_t bufferSize; /* elements, -1: not set */
#endif
} sTIDLRT_Tensor_t;
#if defined(STANDIN_TENSOR_T6)
STANDIN_CHECK(tensor_size, sizeof(sTIDLRT_Tensor_t) == 616);
#else
STANDIN_CHECK(tensor_size, sizeof(sTIDLRT_Tensor_t) == 600);
#endif

enum { ET_U8 = 0, ET_I8, ET_U16, ET_I16, ET_U32, ET_I32, ET_F32, ET_U64, ET_I64, ET_COUNT };
enum { MEM_USER = 0, MEM_SHARED = 1 };
enum { LAYOUT_NCHW = 0, LAYOUT_NHWC = 1 };
enum { PATH_ZERO_COPY = 0, PATH_MEMCPY = 1, PATH_REFORMAT = 2 };

/* ---- io descriptor layouts (sTIDL_IOBufDesc_t), one struct each ---------------------------- */

/* 8.x (37 256 bytes) and 9.0 (37 272): 32 input and 32 output slots, no DIM1/DIM2, no sizes. */
#define IO_V8_BODY                                                                                  \
    int32_t inDataFormat[32], inResizeType[32], resizeWidth[32], resizeHeight[32], inWidth[32],      \
        inHeight[32], inNumChannels[32], inChannelPitch[32], inNumBatches[32], inPadL[32], inPadT[32], \
        inPadR[32], inPadB[32], inPadCh[32], rawDataInElementType[32], inElementType[32],            \
        inZeroPoint[32], inLayout[32], inDataId[32];                                                 \
    float inTensorScale[32];                                                                         \
    int8_t inDataName[32][STANDIN_STRING_SIZE];                                                      \
    int32_t outWidth[32], outHeight[32], outNumChannels[32], outChannelPitch[32], outNumBatches[32], \
        outPadL[32], outPadT[32], outPadR[32], outPadB[32], outPadCh[32], outElementType[32],         \
        outDataId[32];                                                                               \
    int8_t outDataName[32][STANDIN_STRING_SIZE];                                                     \
    float outTensorScale[32];                                                                        \
    int32_t outZeroPoint[32], outLayout[32];

typedef struct { int32_t numInputBuf, numOutputBuf; IO_V8_BODY } io_v8_t;
typedef struct {
    int32_t numInputBuf, numOutputBuf, numCores, numVirtualCores, numSuperBatches, inferenceMode;
    IO_V8_BODY
} io_v90_t;
STANDIN_CHECK(io_v8_size, sizeof(io_v8_t) == 37256);
STANDIN_CHECK(io_v90_size, sizeof(io_v90_t) == 37272);

/* 9.1+ (L2) and 10.x+ (L3): 32*C input and 128*C output slots; L3 adds in/outBufSize. */
#define IO_L_STRUCT(NAME, IN, OUT, IN_SIZE, OUT_SIZE)                                                \
    typedef struct {                                                                                 \
        int32_t numInputBuf, numOutputBuf, numCores, numVirtualCores, numSuperBatches, inferenceMode; \
        int32_t inDataFormat[IN], inResizeType[IN], resizeWidth[IN], resizeHeight[IN], inWidth[IN],  \
            inHeight[IN], inNumChannels[IN], inDIM2[IN], inDIM1[IN], inChannelPitch[IN],             \
            inNumBatches[IN], inPadL[IN], inPadT[IN], inPadR[IN], inPadB[IN], inPadCh[IN],            \
            rawDataInElementType[IN], inElementType[IN], inZeroPoint[IN], inLayout[IN], inDataId[IN]; \
        float inTensorScale[IN];                                                                     \
        int8_t inDataName[IN][STANDIN_STRING_SIZE];                                                  \
        IN_SIZE                                                                                      \
        int32_t outWidth[OUT], outHeight[OUT], outDIM2[OUT], outDIM1[OUT], outNumChannels[OUT],      \
            outChannelPitch[OUT], outNumBatches[OUT], outPadL[OUT], outPadT[OUT], outPadR[OUT],      \
            outPadB[OUT], outPadCh[OUT], outElementType[OUT], outDataId[OUT];                        \
        int8_t outDataName[OUT][STANDIN_STRING_SIZE];                                                \
        float outTensorScale[OUT];                                                                   \
        int32_t outZeroPoint[OUT], outLayout[OUT];                                                   \
        OUT_SIZE                                                                                     \
        int32_t numValidTensorDims[OUT];                                                             \
    } NAME

IO_L_STRUCT(io_l2_c1_t, 32, 128, , );
IO_L_STRUCT(io_l2_c2_t, 64, 256, , );
IO_L_STRUCT(io_l2_c4_t, 128, 512, , );
IO_L_STRUCT(io_l3_c1_t, 32, 128, int32_t inBufSize[32];, int32_t outBufSize[128];);
IO_L_STRUCT(io_l3_c2_t, 64, 256, int32_t inBufSize[64];, int32_t outBufSize[256];);
IO_L_STRUCT(io_l3_c4_t, 128, 512, int32_t inBufSize[128];, int32_t outBufSize[512];);
STANDIN_CHECK(io_l2_c1_size, sizeof(io_l2_c1_t) == 24 + 93952);
STANDIN_CHECK(io_l2_c2_size, sizeof(io_l2_c2_t) == 24 + 2 * 93952);
STANDIN_CHECK(io_l2_c4_size, sizeof(io_l2_c4_t) == 24 + 4 * 93952);
STANDIN_CHECK(io_l3_c1_size, sizeof(io_l3_c1_t) == 94616);
STANDIN_CHECK(io_l3_c2_size, sizeof(io_l3_c2_t) == 189208);
STANDIN_CHECK(io_l3_c4_size, sizeof(io_l3_c4_t) == 378392);

#define STANDIN_CONTAINER_MAGIC 0xFF00FF00u
#define STANDIN_MAX_IN 128
#define STANDIN_MAX_OUT 512

/* One descriptor tensor, normalised; geometry in elements (iobufdesc.md §4). */
typedef struct {
    char name[STANDIN_STRING_SIZE];
    int32_t n, d1, d2, c, h, w, ch_pitch, pad_l, pad_t, pad_r, pad_b, pad_ch, etype, zp, layout;
    float scale;
    int64_t buf_size;    /* stored in/outBufSize, else computed */
    int has_buf_size;
    int64_t line_pitch, c_step, w_step, dim2_pitch, dim1_pitch, batch_pitch, first, required, alloc;
} io_tensor_t;

/* Copies the fields of slot `i` of the io struct `S` into `t` (inputs or outputs). */
#define IO_INPUT(S, i, t, dim1, dim2, bufsize)                                                      \
    do {                                                                                             \
        memcpy((t)->name, (S)->inDataName[i], STANDIN_STRING_SIZE);                                  \
        (t)->n = (S)->inNumBatches[i]; (t)->d1 = (dim1); (t)->d2 = (dim2);                           \
        (t)->c = (S)->inNumChannels[i]; (t)->h = (S)->inHeight[i]; (t)->w = (S)->inWidth[i];         \
        (t)->ch_pitch = (S)->inChannelPitch[i]; (t)->pad_l = (S)->inPadL[i];                        \
        (t)->pad_t = (S)->inPadT[i]; (t)->pad_r = (S)->inPadR[i]; (t)->pad_b = (S)->inPadB[i];       \
        (t)->pad_ch = (S)->inPadCh[i]; (t)->etype = (S)->inElementType[i];                          \
        (t)->zp = (S)->inZeroPoint[i]; (t)->layout = (S)->inLayout[i];                              \
        (t)->scale = (S)->inTensorScale[i]; (t)->buf_size = (bufsize);                              \
    } while (0)
#define IO_OUTPUT(S, i, t, dim1, dim2, bufsize)                                                     \
    do {                                                                                             \
        memcpy((t)->name, (S)->outDataName[i], STANDIN_STRING_SIZE);                                 \
        (t)->n = (S)->outNumBatches[i]; (t)->d1 = (dim1); (t)->d2 = (dim2);                          \
        (t)->c = (S)->outNumChannels[i]; (t)->h = (S)->outHeight[i]; (t)->w = (S)->outWidth[i];      \
        (t)->ch_pitch = (S)->outChannelPitch[i]; (t)->pad_l = (S)->outPadL[i];                      \
        (t)->pad_t = (S)->outPadT[i]; (t)->pad_r = (S)->outPadR[i]; (t)->pad_b = (S)->outPadB[i];    \
        (t)->pad_ch = (S)->outPadCh[i]; (t)->etype = (S)->outElementType[i];                        \
        (t)->zp = (S)->outZeroPoint[i]; (t)->layout = (S)->outLayout[i];                            \
        (t)->scale = (S)->outTensorScale[i]; (t)->buf_size = (bufsize);                             \
    } while (0)

/* ---- state ---------------------------------------------------------------------------------- */

#define STANDIN_MAX_HANDLES 32
#define STANDIN_MAX_SHARED 128

typedef struct {
    sTIDLRT_Params_t params; /* TIDL-RT keeps a copy; `stats` must outlive the handle */
    uint32_t net_version;
    int32_t num_in, num_out;
    io_tensor_t *in, *out;
    void **dev_in, **dev_out;     /* the runtime's own buffers, allocated on first use */
    int32_t *paths_in, *paths_out;
    int model_ramp;
} handle_t;

static handle_t *g_handles[STANDIN_MAX_HANDLES];
static char g_error[1024];
static uint64_t g_ddr_read, g_ddr_write;

static int32_t fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_error, sizeof g_error, fmt, ap);
    va_end(ap);
    fprintf(stderr, "TIDLRT_STANDIN: ERROR: %s\n", g_error);
    return -1;
}

const char *standin_last_error(void) { return g_error; }

static int64_t env_int(const char *name, int64_t fallback) {
    const char *s = getenv(name);
    return (s && *s) ? strtoll(s, NULL, 0) : fallback;
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static const int g_item[ET_COUNT] = {1, 1, 2, 2, 4, 4, 4, 8, 8};

/* ---- defaults (the fingerprint: exactly these fields, nothing else) --------------------------- */

int32_t TIDLRT_setParamsDefault(sTIDLRT_Params_t *prms) {
    if (prms == NULL) return fail("setParamsDefault: params is NULL");
    prms->netPtr = NULL;
    prms->ioBufDescPtr = NULL;
    prms->net_capacity = 0;
    prms->io_capacity = 0;
    prms->flowCtrl = 0; /* the board's value (TI's PC emulation sets 0x21) */
    prms->quantRangeExpansionFactor = 1.0f;
    prms->quantRangeUpdateFactor = 0.0f;
    prms->traceLogLevel = 0;
    prms->traceWriteLevel = 0;
    prms->stats = NULL;
    prms->TIDLVprintf = (standin_vprintf_t)vprintf;
    prms->TIDLWriteBinToFile = NULL;
    prms->TIDLReadBinFromFile = NULL;
#if !defined(STANDIN_PARAMS_PA)
    prms->maxPreEmptDelay = FLT_MAX;
    prms->targetPriority = 0;
#endif
#if defined(STANDIN_PARAMS_PC) || defined(STANDIN_PARAMS_PD)
    prms->coreNum = 1;
#endif
#if defined(STANDIN_PARAMS_PD)
    prms->coreStartIdx = 1;
    strcpy(prms->traceBaseName, "/tmp/tidl_trace");
    strcpy(prms->tempBufferDir, "/dev/shm");
#else
    prms->traceBaseName = NULL;
#endif
    return 0;
}

int32_t TIDLRT_setTensorDefault(sTIDLRT_Tensor_t *tensor) {
    if (tensor == NULL) return fail("setTensorDefault: tensor is NULL");
    tensor->elementType = 0;
    tensor->numDim = 0;
    tensor->ptr = NULL;
    tensor->dataOffset = 0;
    tensor->layout = 0;
    tensor->zeroPoint = 0;
    tensor->scale = 1.0f;
    tensor->memType = 0;
    tensor->pitch[PITCH_ROI] = -1;
    tensor->pitch[PITCH_CHANNEL] = -1;
    tensor->padValues[0] = tensor->padValues[1] = tensor->padValues[2] = tensor->padValues[3] = 0;
    tensor->dimValues[DIM_WIDTH] = -1;
    tensor->dimValues[DIM_HEIGHT] = -1;
    tensor->dimValues[DIM_NUMCH] = -1;
    tensor->dimValues[DIM_BATCH] = -1;
#if defined(STANDIN_TENSOR_T6)
    tensor->bufferSize = -1;
#endif
    return 0;
}

/* ---- io descriptor parsing ------------------------------------------------------------------- */

static int32_t finish_tensor(io_tensor_t *t, int is_input, const char *kind, int slot) {
    char label[64];
    snprintf(label, sizeof label, "%s %d", kind, slot);
    t->name[STANDIN_STRING_SIZE - 1] = '\0';
    if (t->n < 1 || t->d1 < 1 || t->d2 < 1 || t->c < 1 || t->h < 1 || t->w < 1)
        return fail("io descriptor %s '%s': dims N %d DIM1 %d DIM2 %d C %d H %d W %d must be >= 1", label,
                    t->name, t->n, t->d1, t->d2, t->c, t->h, t->w);
    if (t->pad_l < 0 || t->pad_t < 0 || t->pad_r < 0 || t->pad_b < 0 || t->pad_ch < 0)
        return fail("io descriptor %s '%s': negative pad", label, t->name);
    if (t->etype < 0 || t->etype >= ET_COUNT)
        return fail("io descriptor %s '%s': element type %d unknown (0..8)", label, t->name, t->etype);
    if (t->layout != LAYOUT_NCHW && t->layout != LAYOUT_NHWC)
        return fail("io descriptor %s '%s': layout %d unknown", label, t->name, t->layout);
    if (t->etype != ET_F32 && !(isfinite(t->scale) && t->scale > 0.0f))
        return fail("io descriptor %s '%s': scale %g must be finite and > 0", label, t->name, (double)t->scale);
    if (t->layout == LAYOUT_NCHW && t->ch_pitch < t->w + t->pad_l + t->pad_r)
        return fail("io descriptor %s '%s': channel pitch %d smaller than a line", label, t->name, t->ch_pitch);
    if (t->layout == LAYOUT_NHWC && t->ch_pitch < 1)
        return fail("io descriptor %s '%s': channel pitch %d < 1", label, t->name, t->ch_pitch);
    int64_t pad_ch = is_input ? 0 : t->pad_ch, line = (int64_t)t->w + t->pad_l + t->pad_r;
    if (t->layout == LAYOUT_NCHW && t->c > 1 && t->ch_pitch < (int64_t)(t->h - 1) * line + t->w)
        return fail("io descriptor %s '%s': channel pitch %d lets channels overlap", label, t->name, t->ch_pitch);
    if (t->layout == LAYOUT_NHWC) {
        t->line_pitch = line * t->c;
        t->c_step = 1;
        t->w_step = t->c;
        t->first = (int64_t)t->pad_t * t->line_pitch + (int64_t)t->pad_l * t->c;
    } else {
        t->line_pitch = line;
        t->c_step = t->ch_pitch;
        t->w_step = 1;
        t->first = (int64_t)t->pad_t * t->line_pitch + t->pad_l;
    }
    t->dim2_pitch = (int64_t)t->ch_pitch * (t->c + pad_ch);
    t->dim1_pitch = t->dim2_pitch * t->d2;
    t->batch_pitch = t->dim1_pitch * t->d1;
    t->required = t->first + 1 + (int64_t)(t->n - 1) * t->batch_pitch + (int64_t)(t->d1 - 1) * t->dim1_pitch +
                  (int64_t)(t->d2 - 1) * t->dim2_pitch + (int64_t)(t->c - 1) * t->c_step +
                  (int64_t)(t->h - 1) * t->line_pitch + (int64_t)(t->w - 1) * t->w_step;
    if (!t->has_buf_size) {
        int64_t planes = t->c + (is_input ? 1 : t->pad_ch);
        t->buf_size = (int64_t)t->n * t->d1 * t->d2 * planes * ((int64_t)t->h + t->pad_t + t->pad_b) * line;
    } else if (t->buf_size < t->required) {
        return fail("io descriptor %s '%s': last valid element at %lld beyond the buffer size %lld", label, t->name,
                    (long long)(t->required - 1), (long long)t->buf_size);
    }
    t->alloc = t->buf_size > t->required ? t->buf_size : t->required;
    if (t->alloc * g_item[t->etype] > ((int64_t)1 << 31))
        return fail("io descriptor %s '%s': buffer of %lld elements too large", label, t->name, (long long)t->alloc);
    return 0;
}

#define IO_LOAD_L(TYPE, HAS_SIZE)                                                                   \
    do {                                                                                             \
        const TYPE *S = (const TYPE *)bytes;                                                         \
        h->num_in = S->numInputBuf;                                                                  \
        h->num_out = S->numOutputBuf;                                                                \
        in_slots = (int32_t)(sizeof S->inWidth / sizeof S->inWidth[0]);                              \
        out_slots = (int32_t)(sizeof S->outWidth / sizeof S->outWidth[0]);                           \
        if (h->num_in < 0 || h->num_in > in_slots || h->num_out < 0 || h->num_out > out_slots) break;  \
        for (int32_t i = 0; i < h->num_in; i++) {                                                    \
            IO_INPUT(S, i, &h->in[i], S->inDIM1[i], S->inDIM2[i], HAS_SIZE ? IO_IN_SIZE(S, i) : 0);   \
            h->in[i].has_buf_size = HAS_SIZE;                                                        \
        }                                                                                            \
        for (int32_t i = 0; i < h->num_out; i++) {                                                   \
            IO_OUTPUT(S, i, &h->out[i], S->outDIM1[i], S->outDIM2[i], HAS_SIZE ? IO_OUT_SIZE(S, i) : 0); \
            h->out[i].has_buf_size = HAS_SIZE;                                                       \
        }                                                                                            \
    } while (0)

#define IO_LOAD_V8(TYPE)                                                                            \
    do {                                                                                             \
        const TYPE *S = (const TYPE *)bytes;                                                         \
        h->num_in = S->numInputBuf;                                                                  \
        h->num_out = S->numOutputBuf;                                                                \
        in_slots = out_slots = 32;                                                                   \
        if (h->num_in < 0 || h->num_in > in_slots || h->num_out < 0 || h->num_out > out_slots) break;  \
        for (int32_t i = 0; i < h->num_in; i++) IO_INPUT(S, i, &h->in[i], 1, 1, 0);                  \
        for (int32_t i = 0; i < h->num_out; i++) IO_OUTPUT(S, i, &h->out[i], 1, 1, 0);               \
    } while (0)

#if defined(STANDIN_IO_L3)
#define IO_IN_SIZE(S, i) (S)->inBufSize[i]
#define IO_OUT_SIZE(S, i) (S)->outBufSize[i]
#else
#define IO_IN_SIZE(S, i) 0
#define IO_OUT_SIZE(S, i) 0
#endif

/* The accepted descriptor sizes of this build (TIDL-RT's "config file size" check). */
static int32_t io_layout_size(int32_t capacity, int32_t *cores) {
#if defined(STANDIN_IO_8X)
    (void)capacity; *cores = 1; return (int32_t)sizeof(io_v8_t);
#elif defined(STANDIN_IO_90)
    (void)capacity; *cores = 1; return (int32_t)sizeof(io_v90_t);
#elif defined(STANDIN_IO_L2)
    const int32_t sizes[3] = {(int32_t)sizeof(io_l2_c1_t), (int32_t)sizeof(io_l2_c2_t), (int32_t)sizeof(io_l2_c4_t)};
#else
    const int32_t sizes[3] = {(int32_t)sizeof(io_l3_c1_t), (int32_t)sizeof(io_l3_c2_t), (int32_t)sizeof(io_l3_c4_t)};
#endif
#if defined(STANDIN_IO_L2) || defined(STANDIN_IO_L3)
    const int32_t core_counts[3] = {1, 2, 4};
    for (int k = 0; k < 3; k++) {
        if (capacity == sizes[k]) { *cores = core_counts[k]; return sizes[k]; }
    }
#if defined(STANDIN_IO_L3)
    /* the 11.x multi-subgraph container: S bytes, magic, N, N x {offset, size, 0, 0}, N x S bytes */
    for (int k = 0; k < 3; k++) {
        int64_t s = sizes[k];
        if (capacity > s + 8) {
            *cores = core_counts[k];
            return -(int32_t)s; /* negative: a container candidate whose first descriptor is s bytes */
        }
    }
#endif
    *cores = 1;
    return sizes[0];
#endif
}

static int32_t parse_io(handle_t *h, const uint8_t *bytes, int32_t capacity) {
    int32_t cores = 1, in_slots = 0, out_slots = 0;
    int32_t size = io_layout_size(capacity, &cores);
    if (size < 0) { /* container: check magic and total size, then use the combined descriptor */
        int64_t s = -size;
        uint32_t magic, count;
        memcpy(&magic, bytes + s, 4);
        memcpy(&count, bytes + s + 4, 4);
        if (magic != STANDIN_CONTAINER_MAGIC || count == 0 || count > STANDIN_MAX_HANDLES ||
            capacity != s * (count + 1) + 8 + 16 * (int64_t)count)
            return fail("Config file size (%d bytes) does not match size of sTIDL_IOBufDesc_t (%lld bytes) and is "
                        "not a multi-subgraph container", capacity, (long long)s);
        size = (int32_t)s;
    } else if (capacity != size) {
        return fail("Config file size (%d bytes) does not match size of sTIDL_IOBufDesc_t (%d bytes)", capacity, size);
    }
    h->in = calloc(STANDIN_MAX_IN, sizeof *h->in);
    h->out = calloc(STANDIN_MAX_OUT, sizeof *h->out);
    if (!h->in || !h->out) return fail("out of memory");
    h->num_in = h->num_out = -1;
#if defined(STANDIN_IO_8X)
    IO_LOAD_V8(io_v8_t);
#elif defined(STANDIN_IO_90)
    IO_LOAD_V8(io_v90_t);
#else
#if defined(STANDIN_IO_L3)
#define STANDIN_HAS_SIZE 1
#define L_C1 io_l3_c1_t
#define L_C2 io_l3_c2_t
#define L_C4 io_l3_c4_t
#else
#define STANDIN_HAS_SIZE 0
#define L_C1 io_l2_c1_t
#define L_C2 io_l2_c2_t
#define L_C4 io_l2_c4_t
#endif
    if (cores == 1) IO_LOAD_L(L_C1, STANDIN_HAS_SIZE);
    else if (cores == 2) IO_LOAD_L(L_C2, STANDIN_HAS_SIZE);
    else IO_LOAD_L(L_C4, STANDIN_HAS_SIZE);
#endif
    if (h->num_in < 0 || h->num_in > in_slots || h->num_out < 0 || h->num_out > out_slots)
        return fail("io descriptor: numInputBuf %d / numOutputBuf %d outside 0..%d / 0..%d", h->num_in, h->num_out,
                    in_slots, out_slots);
    for (int32_t i = 0; i < h->num_in; i++)
        if (finish_tensor(&h->in[i], 1, "input", i)) return -1;
    for (int32_t i = 0; i < h->num_out; i++)
        if (finish_tensor(&h->out[i], 0, "output", i)) return -1;
    return 0;
}

/* ---- create / delete ------------------------------------------------------------------------- */

static void free_handle(handle_t *h) {
    if (!h) return;
    for (int32_t i = 0; h->dev_in && i < h->num_in; i++) free(h->dev_in[i]);
    for (int32_t i = 0; h->dev_out && i < h->num_out; i++) free(h->dev_out[i]);
    free(h->dev_in); free(h->dev_out); free(h->paths_in); free(h->paths_out);
    free(h->in); free(h->out);
    free(h);
}

static int identity_fits(const handle_t *h) {
    if (h->num_in != h->num_out) return 0;
    for (int32_t i = 0; i < h->num_in; i++) {
        const io_tensor_t *a = &h->in[i], *b = &h->out[i];
        if ((int64_t)a->n * a->d1 * a->d2 * a->c * a->h * a->w != (int64_t)b->n * b->d1 * b->d2 * b->c * b->h * b->w)
            return 0;
    }
    return 1;
}

/* ---- a board build: TI's vision_apps start-up (appInit) and its DMA heap -------------------------- */

#if defined(STANDIN_BOARD)
#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define STANDIN_DMA_HEAP "/dev/dma_heap/vision_apps_shared-memories"
#define STANDIN_DMA_HEAP_IOCTL_ALLOC 0xc0184800UL /* _IOWR('H', 0, struct dma_heap_allocation_data) */

struct standin_dma_heap_allocation_data {
    uint64_t len;
    uint32_t fd, fd_flags;
    uint64_t heap_flags;
};

static int g_heap_fd;  /* 0 until appInit opens the heap, as in TI's zero-initialised memory object */
static int g_app_init; /* 0 not tried, 1 done, -1 failed */

static void board_log(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fflush(stdout);
}

static int board_open(const char *path, int flags, const char *error) {
    int fd = open(path, flags | O_CLOEXEC);
    if (fd < 0) board_log("%s\n", error);
    return fd;
}

int32_t appIpcInit(void) { /* rpmsg to the remote cores */
    int fd = board_open("/dev/rpmsg_ctrl0", O_RDWR, "IPC: ERROR: Unable to open /dev/rpmsg_ctrl0 !!!");
    if (fd < 0) return -1;
    close(fd);
    return 0;
}

int32_t appInit(void) {
    if (g_app_init) return g_app_init > 0 ? 0 : -1;
    int32_t status = 0;
    board_log("APP: Init ... !!!\n");
    int fd = board_open("/dev/mem", O_RDWR | O_SYNC, "APP_LOG: ERROR: Unable to open /dev/mem !!!");
    if (fd < 0) status = -1;
    else close(fd);
    fd = board_open(STANDIN_DMA_HEAP, O_RDONLY, "MEM: ERROR: Failed to initialize DMA HEAP [" STANDIN_DMA_HEAP "] !!!");
    g_heap_fd = fd; /* -1 when it failed, as TI's appMemInit leaves it */
    if (fd < 0) status = -1;
    fd = board_open("/dev/dma-buf-phys", O_RDONLY, "MEM: ERROR: /dev/dma-buf-phys open failed !!!");
    if (fd < 0) status = -1;
    else close(fd);
    if (appIpcInit() != 0) {
        board_log("APP: ERROR: IPC init failed !!!\n");
        status = -1;
    }
    board_log("APP: Init ... Done !!!\n");
    g_app_init = status == 0 ? 1 : -1;
    return status;
}

static void *board_heap_alloc(size_t size) {
    struct standin_dma_heap_allocation_data d = {size, 0, O_RDWR | O_CLOEXEC, 0};
    if (ioctl(g_heap_fd, STANDIN_DMA_HEAP_IOCTL_ALLOC, &d) < 0) {
        board_log("MEM: ERROR: Alloc failed with status = %d !!!\n", errno);
        return NULL;
    }
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, (int)d.fd, 0);
    close((int)d.fd);
    return p == MAP_FAILED ? NULL : p;
}
#endif

int32_t TIDLRT_create(sTIDLRT_Params_t *prms, void **handle) {
#if defined(STANDIN_BOARD)
    appInit(); /* as TIDL-RT 8.4: its status is not looked at */
    volatile int32_t *context = board_heap_alloc(4096);
    context[0] = 0; /* NULL when the heap is not up: a real SIGSEGV, as TI's create */
#endif
    int64_t forced = env_int("TIDLRT_STANDIN_CREATE_STATUS", 0);
    if (forced) return (int32_t)forced;
    if (prms == NULL || handle == NULL) return fail("create: params or handle pointer is NULL");
    *handle = NULL;
    if (prms->netPtr == NULL || prms->net_capacity < 4)
        return fail("create: netPtr %p / net_capacity %d: the network is missing", prms->netPtr, prms->net_capacity);
    if (prms->ioBufDescPtr == NULL || prms->io_capacity <= 0)
        return fail("create: ioBufDescPtr %p / io_capacity %d: the io descriptor is missing", prms->ioBufDescPtr,
                    prms->io_capacity);
    int slot = -1;
    for (int k = 0; k < STANDIN_MAX_HANDLES; k++)
        if (g_handles[k] == NULL) { slot = k; break; }
    if (slot < 0) return fail("create: all %d handles in use", STANDIN_MAX_HANDLES);
    handle_t *h = calloc(1, sizeof *h);
    if (!h) return fail("out of memory");
    if (parse_io(h, (const uint8_t *)prms->ioBufDescPtr, prms->io_capacity)) { free_handle(h); return -1; }
    memcpy(&h->net_version, prms->netPtr, 4);
    h->dev_in = calloc((size_t)h->num_in + 1, sizeof(void *));
    h->dev_out = calloc((size_t)h->num_out + 1, sizeof(void *));
    h->paths_in = calloc((size_t)h->num_in + 1, sizeof(int32_t));
    h->paths_out = calloc((size_t)h->num_out + 1, sizeof(int32_t));
    if (!h->dev_in || !h->dev_out || !h->paths_in || !h->paths_out) { free_handle(h); return fail("out of memory"); }
    const char *model = getenv("TIDLRT_STANDIN_MODEL");
    if (model && strcmp(model, "ramp") == 0) h->model_ramp = 1;
    else if (model && strcmp(model, "identity") == 0) {
        if (!identity_fits(h)) { free_handle(h); return fail("create: model identity needs equal element counts"); }
    } else h->model_ramp = !identity_fits(h);
    h->params = *prms;
    h->params.netPtr = NULL; /* the caller may free it: keep nothing that points into it */
    h->params.ioBufDescPtr = NULL;
    int64_t scribble = env_int("TIDLRT_STANDIN_SCRIBBLE_PARAMS", 0);
    if (scribble > 0) memset((uint8_t *)prms + sizeof *prms, 0xEE, (size_t)scribble);
    g_handles[slot] = h;
    *handle = h;
    return 0;
}

static int find_handle(void *handle) {
    for (int k = 0; k < STANDIN_MAX_HANDLES; k++)
        if (handle != NULL && g_handles[k] == handle) return k;
    return -1;
}

int32_t TIDLRT_deactivate(void *handle) {
    return find_handle(handle) < 0 ? fail("deactivate: unknown handle %p", handle) : 0;
}

int32_t TIDLRT_delete(void *handle) {
    int k = find_handle(handle);
    if (k < 0) return fail("delete: unknown handle %p (deleted twice?)", handle);
    free_handle(g_handles[k]);
    g_handles[k] = NULL;
    return 0;
}

/* ---- element access ------------------------------------------------------------------------- */

/* An element as float, like TI's copy loops (`float data = *src`). */
static float load_f32(const void *p, int64_t i, int etype) {
    switch (etype) {
    case ET_U8: return (float)((const uint8_t *)p)[i];
    case ET_I8: return (float)((const int8_t *)p)[i];
    case ET_U16: return (float)((const uint16_t *)p)[i];
    case ET_I16: return (float)((const int16_t *)p)[i];
    case ET_U32: return (float)((const uint32_t *)p)[i];
    case ET_I32: return (float)((const int32_t *)p)[i];
    case ET_F32: return ((const float *)p)[i];
    case ET_U64: return (float)((const uint64_t *)p)[i];
    default: return (float)((const int64_t *)p)[i];
    }
}

static void type_range(int etype, double *lo, double *hi) {
    static const double los[ET_COUNT] = {0, -128, 0, -32768, 0, -2147483648.0, 0, 0, -9223372036854775808.0};
    static const double his[ET_COUNT] = {255, 127, 65535, 32767, 4294967295.0, 2147483647.0, 0,
                                         18446744073709551615.0, 9223372036854775807.0};
    *lo = los[etype];
    *hi = his[etype];
}

/* Stores an integer-valued, in-range double (or any value for float32). */
static void store_exact(void *p, int64_t i, int etype, double v) {
    switch (etype) {
    case ET_U8: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case ET_I8: ((int8_t *)p)[i] = (int8_t)v; break;
    case ET_U16: ((uint16_t *)p)[i] = (uint16_t)v; break;
    case ET_I16: ((int16_t *)p)[i] = (int16_t)v; break;
    case ET_U32: ((uint32_t *)p)[i] = (uint32_t)v; break;
    case ET_I32: ((int32_t *)p)[i] = (int32_t)v; break;
    case ET_F32: ((float *)p)[i] = (float)v; break;
    case ET_U64:
        ((uint64_t *)p)[i] = v >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)v;
        break;
    default:
        ((int64_t *)p)[i] = v >= 9223372036854775807.0 ? INT64_MAX : (int64_t)v;
        break;
    }
}

/* TIDL-RT's saturating store of a float (clamp to the type's range, then a C cast that truncates);
 * NaN becomes 0 (ARM's conversion); 32/64-bit types saturate at their exact maximum. */
static void store_sat(void *p, int64_t i, int etype, float v) {
    if (etype == ET_F32) {
        ((float *)p)[i] = v > FLT_MAX ? FLT_MAX : (v < -FLT_MAX ? -FLT_MAX : v);
        return;
    }
    double lo, hi, d = isnan(v) ? 0.0 : (double)v;
    type_range(etype, &lo, &hi);
    d = d < lo ? lo : (d > hi ? hi : d);
    store_exact(p, i, etype, trunc(d));
}

/* TIDL-RT's as-is store: a bare C cast; values it cannot represent are refused (undefined on the board). */
static int store_cast(void *p, int64_t i, int etype, float v) {
    if (etype == ET_F32) {
        ((float *)p)[i] = v;
        return 0;
    }
    double lo, hi, d = (double)v;
    type_range(etype, &lo, &hi);
    if (isnan(v) || d <= lo - 1.0 || d >= hi + 1.0) return -1;
    store_exact(p, i, etype, trunc(d));
    return 0;
}

/* ---- the conversion of one tensor (TIDL-RT's reformat path) ---------------------------------- */

enum { BR_ASIS, BR_SCALE, BR_ZF, BR_ZFSCALE };

typedef struct {
    int branch;
    float zf, factor;
} conv_t;

/* Index of logical element (n, cc, y, x) in a dense user tensor, cc = (d1*D2 + d2)*C + c
 * (TIDL-RT folds DIM1, DIM2 and C into one channel count). */
static int64_t dense_index(const io_tensor_t *t, int layout, int64_t n, int64_t cc, int64_t y, int64_t x) {
    int64_t c = (int64_t)t->c * t->d1 * t->d2;
    if (layout == LAYOUT_NHWC) return ((n * t->h + y) * t->w + x) * c + cc;
    return ((n * c + cc) * t->h + y) * t->w + x;
}

/* Index of logical element (n, cc, y, x) in the device buffer (iobufdesc.md §4 geometry). */
static int64_t device_index(const io_tensor_t *t, int64_t n, int64_t cc, int64_t y, int64_t x) {
    int64_t c = cc % t->c, d2 = (cc / t->c) % t->d2, d1 = cc / ((int64_t)t->c * t->d2);
    return t->first + n * t->batch_pitch + d1 * t->dim1_pitch + d2 * t->dim2_pitch + c * t->c_step +
           y * t->line_pitch + x * t->w_step;
}

/* Converts between the device buffer and a dense user tensor. to_device: user -> device. */
static int32_t convert(const io_tensor_t *t, int to_device, void *dev, void *user, int user_type, int user_layout,
                       const conv_t *cv, const char *what) {
    int64_t cc_count = (int64_t)t->c * t->d1 * t->d2;
    int src_type = to_device ? user_type : t->etype, dst_type = to_device ? t->etype : user_type;
    if (cv->branch == BR_ASIS) { /* check first: a refused tensor leaves the destination untouched */
        for (int64_t n = 0; n < t->n; n++)
            for (int64_t cc = 0; cc < cc_count; cc++)
                for (int64_t y = 0; y < t->h; y++)
                    for (int64_t x = 0; x < t->w; x++) {
                        int64_t di = device_index(t, n, cc, y, x), ui = dense_index(t, user_layout, n, cc, y, x);
                        float v = to_device ? load_f32(user, ui, src_type) : load_f32(dev, di, src_type);
                        uint64_t scratch;
                        if (store_cast(&scratch, 0, dst_type, v))
                            return fail("%s '%s': value %g cannot be represented in element type %d and TIDL-RT "
                                        "converts it with a bare C cast (same scale and zero point)",
                                        what, t->name, (double)v, dst_type);
                    }
    }
    for (int64_t n = 0; n < t->n; n++)
        for (int64_t cc = 0; cc < cc_count; cc++)
            for (int64_t y = 0; y < t->h; y++)
                for (int64_t x = 0; x < t->w; x++) {
                    int64_t di = device_index(t, n, cc, y, x), ui = dense_index(t, user_layout, n, cc, y, x);
                    float data = to_device ? load_f32(user, ui, src_type) : load_f32(dev, di, src_type);
                    void *dst = to_device ? dev : user;
                    int64_t k = to_device ? di : ui;
                    switch (cv->branch) {
                    case BR_ASIS: store_cast(dst, k, dst_type, data); break;
                    case BR_SCALE: store_sat(dst, k, dst_type, data * cv->factor); break;
                    case BR_ZF: store_sat(dst, k, dst_type, data - cv->zf); break;
                    default: store_sat(dst, k, dst_type, (data - cv->zf) * cv->factor); break;
                    }
                }
    return 0;
}

/* ---- invoke --------------------------------------------------------------------------------- */

static int32_t user_ch_pitch(const sTIDLRT_Tensor_t *u, const io_tensor_t *t) {
    int32_t p = u->pitch[PITCH_CHANNEL];
    return p == -1 ? t->w * t->h : p;
}

static int64_t user_buffer_size(const sTIDLRT_Tensor_t *u) {
#if defined(STANDIN_TENSOR_T6)
    return u->bufferSize;
#else
    (void)u;
    return -1;
#endif
}

/* TIDL-RT's is_tidlrt_in/out_tensor_same: may the runtime use this tensor as its own buffer? */
static int same_properties(const sTIDLRT_Tensor_t *u, const io_tensor_t *t, int is_input) {
    if (u->elementType != t->etype) return 0;
    if (user_ch_pitch(u, t) != t->ch_pitch && t->c > 1 && u->layout == LAYOUT_NCHW) return 0;
    if (u->layout != (uint32_t)t->layout && t->c > 1) return 0;
    if (u->zeroPoint != t->zp) return 0;
    if (u->scale != t->scale) return 0;
    if (u->padValues[0] != t->pad_l || u->padValues[1] != t->pad_r || u->padValues[2] != t->pad_t) return 0;
    if (is_input && user_buffer_size(u) != -1 && user_buffer_size(u) < t->buf_size) return 0;
    return 1;
}

/* The conversion TIDL-RT picks for a tensor that is not the runtime's own; -1 if its tables have none. */
static int32_t plan_conversion(const sTIDLRT_Tensor_t *u, const io_tensor_t *t, int is_input, conv_t *cv) {
    float user_scale = u->scale, dev_scale = t->scale;
    int32_t user_zp = u->zeroPoint, dev_zp = t->zp;
    if (u->elementType == ET_F32) { user_scale = 1.0f; user_zp = 0; }
    if (!is_input && user_scale == -1.0f) user_scale = dev_scale;
    if (is_input && t->etype == ET_F32) dev_scale = 1.0f;
    int same_zp = user_zp == dev_zp, same_scale = user_scale == dev_scale;
    cv->branch = same_zp ? (same_scale ? BR_ASIS : BR_SCALE) : (same_scale ? BR_ZF : BR_ZFSCALE);
    if (is_input) {
        cv->factor = dev_scale / user_scale;
        cv->zf = (float)user_zp;
    } else {
        cv->factor = user_scale / dev_scale;
        cv->zf = cv->branch == BR_ZF ? (float)(-user_zp) : (float)(-user_zp) * dev_scale / user_scale;
    }
    /* TIDL-RT's copy tables */
    int dev = t->etype, usr = u->elementType;
    int common = dev == ET_U8 || dev == ET_I8 || dev == ET_U16 || dev == ET_I16 || dev == ET_F32;
    if (common) return 0;
    if (is_input && cv->branch == BR_ASIS &&
        ((usr == ET_I32 && (dev == ET_U32 || dev == ET_I32)) ||
         (usr == ET_I64 && (dev == ET_I32 || dev == ET_U64 || dev == ET_I64))))
        return 0;
    return fail("%s '%s': TIDL-RT cannot convert element type %d into %d (its copy tables return VX_FAILURE)",
                is_input ? "input" : "output", t->name, is_input ? usr : dev, is_input ? dev : usr);
}

static int64_t memcpy_elements(const sTIDLRT_Tensor_t *u, const io_tensor_t *t); /* below */

/* Checks one user tensor against its descriptor tensor and picks its path. */
static int32_t plan_tensor(const sTIDLRT_Tensor_t *u, const io_tensor_t *t, int is_input, int32_t *path,
                           conv_t *cv) {
    const char *kind = is_input ? "input" : "output";
    if (u == NULL) return fail("%s '%s': tensor pointer is NULL", kind, t->name);
    if (u->ptr == NULL) return fail("%s '%s': ptr is NULL", kind, t->name);
    if (u->elementType < 0 || u->elementType >= ET_COUNT)
        return fail("%s '%s': element type %d unknown (0..8)", kind, t->name, u->elementType);
    if (u->numDim < 1 || u->numDim > STANDIN_NUM_DIMS)
        return fail("%s '%s': numDim %d outside 1..%d", kind, t->name, u->numDim, STANDIN_NUM_DIMS);
    if (u->layout != LAYOUT_NCHW && u->layout != LAYOUT_NHWC)
        return fail("%s '%s': layout %u unknown", kind, t->name, u->layout);
    int32_t want[STANDIN_NUM_DIMS];
    want[DIM_BATCH] = t->n; want[DIM_NUMCH] = t->c; want[DIM_HEIGHT] = t->h; want[DIM_WIDTH] = t->w;
#if defined(STANDIN_TENSOR_T6)
    want[DIM_DIM1] = t->d1; want[DIM_DIM2] = t->d2;
#endif
    for (int k = 0; k < STANDIN_NUM_DIMS; k++)
        if (u->dimValues[k] != want[k])
            return fail("%s '%s': dimValues[%d] = %d, the descriptor says %d", kind, t->name, k, u->dimValues[k],
                        want[k]);
    for (int k = 0; k < 4; k++)
        if (u->padValues[k] < 0) return fail("%s '%s': padValues[%d] = %d < 0", kind, t->name, k, u->padValues[k]);
    int64_t user_size = user_buffer_size(u);
    if (same_properties(u, t, is_input)) {
        if (u->memType == MEM_SHARED) {
            *path = PATH_ZERO_COPY;
            if (user_size != -1 && user_size < t->alloc)
                return fail("%s '%s': bufferSize %lld is below the %lld elements the device %s in place", kind,
                            t->name, (long long)user_size, (long long)t->alloc, is_input ? "reads" : "writes");
            return 0;
        }
        *path = PATH_MEMCPY;
        if (user_size != -1 && user_size < memcpy_elements(u, t))
            return fail("%s '%s': bufferSize %lld is below the %lld elements TIDL-RT copies", kind, t->name,
                        (long long)user_size, (long long)memcpy_elements(u, t));
        return 0;
    }
    *path = PATH_REFORMAT;
    /* TIDL-RT reads/writes a converted tensor as a dense array of the descriptor's dims */
    int64_t dense = (int64_t)t->n * t->d1 * t->d2 * t->c * t->h * t->w;
    int64_t dense_line = u->layout == LAYOUT_NHWC ? (int64_t)t->w * t->c * t->d1 * t->d2 : t->w;
    if (u->padValues[0] || u->padValues[1] || u->padValues[2] || u->padValues[3])
        return fail("%s '%s': TIDL-RT converts this tensor and reads it as dense, but it has pads %d,%d,%d,%d", kind,
                    t->name, u->padValues[0], u->padValues[1], u->padValues[2], u->padValues[3]);
    if (u->pitch[PITCH_CHANNEL] != -1 && u->pitch[PITCH_CHANNEL] != t->h * t->w)
        return fail("%s '%s': converted tensors are dense: channel pitch %d, expected -1 or %d", kind, t->name,
                    u->pitch[PITCH_CHANNEL], t->h * t->w);
    if (u->pitch[PITCH_LINE] != -1 && u->pitch[PITCH_LINE] != dense_line)
        return fail("%s '%s': converted tensors are dense: line pitch %d, expected -1 or %lld", kind, t->name,
                    u->pitch[PITCH_LINE], (long long)dense_line);
    if (user_size != -1 && user_size < dense)
        return fail("%s '%s': bufferSize %lld is below the %lld elements of the dense tensor", kind, t->name,
                    (long long)user_size, (long long)dense);
    return plan_conversion(u, t, is_input, cv);
}

static void *device_buffer(void **slot, const io_tensor_t *t) {
    if (*slot == NULL) *slot = calloc((size_t)t->alloc, (size_t)g_item[t->etype]);
    return *slot;
}

/* N*C*DIM1*DIM2*chPitch elements (TIDL-RT's memcpy size), never beyond the buffer. */
static int64_t memcpy_elements(const sTIDLRT_Tensor_t *u, const io_tensor_t *t) {
    int64_t n = (int64_t)t->n * t->c * t->d1 * t->d2 * user_ch_pitch(u, t);
    return n < t->buf_size ? n : t->buf_size;
}

static int64_t logical_index(const io_tensor_t *t, int64_t k); /* below */
static int64_t tensor_size(const io_tensor_t *t);

/* TIDL reads input pads as data: every non-valid element of the first `count` must be zero. */
static int32_t check_input_pads(const io_tensor_t *t, const void *buf, int64_t count) {
    if (env_int("TIDLRT_STANDIN_INPUT_PADS", 1) == 0 || count <= 0) return 0;
    uint8_t *valid = calloc((size_t)count, 1);
    if (!valid) return fail("out of memory");
    for (int64_t k = 0, size = tensor_size(t); k < size; k++) {
        int64_t i = logical_index(t, k);
        if (i < count) valid[i] = 1;
    }
    const uint8_t *b = buf;
    int item = g_item[t->etype];
    int64_t bad = -1;
    for (int64_t i = 0; i < count && bad < 0; i++) {
        if (valid[i]) continue;
        for (int k = 0; k < item; k++)
            if (b[i * item + k]) { bad = i; break; }
    }
    free(valid);
    if (bad >= 0)
        return fail("input '%s': pad element %lld is not zero (TIDL reads input pads as data; zero them once)",
                    t->name, (long long)bad);
    return 0;
}

/* ---- the device: dequantize, model, quantize ------------------------------------------------- */

/* tidl_io.quant.dequantize, element by element: float32((q - zp)) / float32(scale), exact paths. */
static double dequantize(const void *p, int64_t i, const io_tensor_t *t) {
    if (t->etype == ET_F32) return (double)((const float *)p)[i];
    double q;
    switch (t->etype) {
    case ET_U8: q = ((const uint8_t *)p)[i]; break;
    case ET_I8: q = ((const int8_t *)p)[i]; break;
    case ET_U16: q = ((const uint16_t *)p)[i]; break;
    case ET_I16: q = ((const int16_t *)p)[i]; break;
    case ET_U32: q = ((const uint32_t *)p)[i]; break;
    case ET_I32: q = ((const int32_t *)p)[i]; break;
    case ET_U64: q = (double)((const uint64_t *)p)[i]; break;
    default: q = (double)((const int64_t *)p)[i]; break;
    }
    int item = g_item[t->etype];
    if (t->scale == 1.0f && t->zp == 0 && item < 8) return q;
    if (item <= 2 && t->zp <= (1 << 23) && t->zp >= -(1 << 23)) return (double)(((float)q - (float)t->zp) / t->scale);
    return (double)((float)(q - (double)t->zp) / t->scale);
}

/* tidl_io.quant.quantize(rounding="nearest", nan="zero") of a double, element by element. */
static void quantize(void *p, int64_t i, const io_tensor_t *t, double y) {
    if (t->etype == ET_F32) {
        ((float *)p)[i] = (float)y;
        return;
    }
    double v = y * (double)t->scale, lo, hi;
    if (t->zp) v += (double)t->zp;
    if (isnan(v)) v = (double)t->zp;
    v = nearbyint(v); /* default rounding mode: half to even */
    type_range(t->etype, &lo, &hi);
    if (t->etype == ET_U64 || t->etype == ET_I64) { /* wide codes: the largest double below the maximum */
        double hi_f = nextafter(hi, 0.0);
        if (v > hi_f) {
            if (t->etype == ET_U64) ((uint64_t *)p)[i] = UINT64_MAX;
            else ((int64_t *)p)[i] = INT64_MAX;
            return;
        }
    }
    v = v < lo ? lo : (v > hi ? hi : v);
    store_exact(p, i, t->etype, v);
}

/* NumPy's pairwise float64 sum (what np.sum does on a contiguous array). */
static double pairwise_sum(const double *a, int64_t n) {
    if (n < 8) {
        double res = 0.0;
        for (int64_t i = 0; i < n; i++) res += a[i];
        return res;
    }
    if (n <= 128) {
        double r[8];
        int64_t i;
        for (int k = 0; k < 8; k++) r[k] = a[k];
        for (i = 8; i < n - (n % 8); i += 8)
            for (int k = 0; k < 8; k++) r[k] += a[i + k];
        double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++) res += a[i];
        return res;
    }
    int64_t n2 = n / 2;
    n2 -= n2 % 8;
    return pairwise_sum(a, n2) + pairwise_sum(a + n2, n - n2);
}

static int64_t tensor_size(const io_tensor_t *t) { return (int64_t)t->n * t->d1 * t->d2 * t->c * t->h * t->w; }

/* Valid element k (logical C order over N, DIM1, DIM2, C, H, W) -> buffer index. */
static int64_t logical_index(const io_tensor_t *t, int64_t k) {
    int64_t x = k % t->w; k /= t->w;
    int64_t y = k % t->h; k /= t->h;
    int64_t cc = k % ((int64_t)t->c * t->d1 * t->d2);
    int64_t n = k / ((int64_t)t->c * t->d1 * t->d2);
    return device_index(t, n, cc, y, x);
}

static void poison(void *buf, const io_tensor_t *t) {
    if (t->etype == ET_F32) {
        const uint32_t bits = 0x7FC0A5A5u;
        for (int64_t i = 0; i < t->alloc; i++) memcpy((uint8_t *)buf + 4 * i, &bits, 4);
    } else {
        memset(buf, 0xA5, (size_t)(t->alloc * g_item[t->etype]));
    }
}

static int32_t run_device(handle_t *h, void **dev_in, void **dev_out) {
    double **x = calloc((size_t)h->num_in + 1, sizeof(double *));
    if (!x) return fail("out of memory");
    int32_t status = 0;
    double total = 0.0;
    int64_t count = 0;
    for (int32_t i = 0; i < h->num_in && status == 0; i++) {
        const io_tensor_t *t = &h->in[i];
        int64_t size = tensor_size(t);
        x[i] = malloc((size_t)(size > 0 ? size : 1) * sizeof(double));
        if (!x[i]) { status = fail("out of memory"); break; }
        for (int64_t k = 0; k < size; k++) x[i][k] = dequantize(dev_in[i], logical_index(t, k), t);
        total += pairwise_sum(x[i], size);
        count += size;
        g_ddr_read += (uint64_t)(size * g_item[t->etype]);
    }
    double mean = count ? total / (double)count : 0.0;
    for (int32_t j = 0; j < h->num_out && status == 0; j++) {
        const io_tensor_t *t = &h->out[j];
        int64_t size = tensor_size(t);
        poison(dev_out[j], t);
        double lo = -8.0, hi = 8.0;
        if (h->model_ramp && t->etype != ET_F32) {
            double qlo, qhi;
            type_range(t->etype, &qlo, &qhi);
            lo = (qlo - (double)t->zp) / (double)t->scale;
            hi = (qhi - (double)t->zp) / (double)t->scale;
            lo = lo > -8.0 ? lo : -8.0;
            hi = hi < 8.0 ? hi : 8.0;
        }
        for (int64_t k = 0; k < size; k++) {
            double y;
            if (h->model_ramp) { /* tidl_io.models.ramp */
                double v = (0.25 * mean + 0.6180339887498949 * (double)(k + 1)) + 0.1 * (double)j;
                double r = fmod(v, 1.0);
                if (r != 0.0) {
                    if (r < 0.0) r += 1.0;
                } else {
                    r = 0.0;
                }
                y = lo + (hi - lo) * r;
            } else {
                y = x[j][k];
            }
            quantize(dev_out[j], logical_index(t, k), t, y);
        }
        g_ddr_write += (uint64_t)(size * g_item[t->etype]);
    }
    for (int32_t i = 0; i < h->num_in; i++) free(x[i]);
    free(x);
    return status;
}

static int32_t match_tensor(sTIDLRT_Tensor_t *list[], int32_t count, const io_tensor_t *t, int32_t index) {
    for (int32_t k = 0; k < count; k++)
        if (list[k] != NULL && strncmp((const char *)list[k]->name, t->name, STANDIN_STRING_SIZE) == 0) return k;
    return index;
}

int32_t TIDLRT_invoke(void *handle, sTIDLRT_Tensor_t *in[], sTIDLRT_Tensor_t *out[]) {
    int k = find_handle(handle);
    if (k < 0) return fail("invoke: unknown handle %p (deleted?)", handle);
    int64_t forced = env_int("TIDLRT_STANDIN_INVOKE_STATUS", 0);
    if (forced) return (int32_t)forced;
    handle_t *h = g_handles[k];
    if ((h->num_in && in == NULL) || (h->num_out && out == NULL)) return fail("invoke: tensor array is NULL");
    sTIDLRT_PerfStats_t *stats = h->params.stats;
    g_ddr_read = g_ddr_write = 0;
    size_t nin = (size_t)h->num_in + 1, nout = (size_t)h->num_out + 1;
    sTIDLRT_Tensor_t **uin = calloc(nin, sizeof *uin), **uout = calloc(nout, sizeof *uout);
    conv_t *cin = calloc(nin, sizeof *cin), *cout = calloc(nout, sizeof *cout);
    void **din = calloc(nin, sizeof *din), **dout = calloc(nout, sizeof *dout);
    int32_t status = (!uin || !uout || !cin || !cout || !din || !dout) ? fail("out of memory") : 0;
    for (int32_t i = 0; i < h->num_in && status == 0; i++) {
        uin[i] = in[match_tensor(in, h->num_in, &h->in[i], i)];
        status = plan_tensor(uin[i], &h->in[i], 1, &h->paths_in[i], &cin[i]);
    }
    for (int32_t j = 0; j < h->num_out && status == 0; j++) {
        uout[j] = out[match_tensor(out, h->num_out, &h->out[j], j)];
        status = plan_tensor(uout[j], &h->out[j], 0, &h->paths_out[j], &cout[j]);
    }
    if (status == 0 && stats) stats->cpIn_time_start = now_ns();
    for (int32_t i = 0; i < h->num_in && status == 0; i++) { /* copy in */
        const io_tensor_t *t = &h->in[i];
        if (h->paths_in[i] == PATH_ZERO_COPY) {
            din[i] = uin[i]->ptr;
            status = check_input_pads(t, din[i], t->buf_size);
            continue;
        }
        din[i] = device_buffer(&h->dev_in[i], t);
        if (!din[i]) { status = fail("out of memory"); break; }
        if (h->paths_in[i] == PATH_MEMCPY) {
            int64_t n = memcpy_elements(uin[i], t);
            memcpy(din[i], uin[i]->ptr, (size_t)(n * g_item[t->etype]));
            status = check_input_pads(t, din[i], n);
        } else {
            status = convert(t, 1, din[i], uin[i]->ptr, uin[i]->elementType, (int)uin[i]->layout, &cin[i], "input");
        }
    }
    for (int32_t j = 0; j < h->num_out && status == 0; j++) {
        const io_tensor_t *t = &h->out[j];
        dout[j] = h->paths_out[j] == PATH_ZERO_COPY ? uout[j]->ptr : device_buffer(&h->dev_out[j], t);
        if (!dout[j]) status = fail("out of memory");
    }
    if (status == 0 && stats) stats->cpIn_time_end = stats->proc_time_start = now_ns();
    if (status == 0) status = run_device(h, din, dout);
    if (status == 0 && stats) stats->proc_time_end = stats->cpOut_time_start = now_ns();
    for (int32_t j = 0; j < h->num_out && status == 0; j++) { /* copy out */
        const io_tensor_t *t = &h->out[j];
        if (h->paths_out[j] == PATH_MEMCPY) {
            memcpy(uout[j]->ptr, dout[j], (size_t)(memcpy_elements(uout[j], t) * g_item[t->etype]));
        } else if (h->paths_out[j] == PATH_REFORMAT) {
            status = convert(t, 0, dout[j], uout[j]->ptr, uout[j]->elementType, (int)uout[j]->layout, &cout[j],
                             "output");
        }
    }
    if (status == 0 && stats) stats->cpOut_time_end = now_ns();
    int64_t scribble = env_int("TIDLRT_STANDIN_SCRIBBLE_TENSOR", 0);
    if (status == 0 && scribble > 0 && h->num_in > 0 && in[0] != NULL)
        memset((uint8_t *)in[0] + sizeof(sTIDLRT_Tensor_t), 0xEE, (size_t)scribble);
    free(uin); free(uout); free(cin); free(cout); free(din); free(dout);
    return status;
}

/* The path each descriptor tensor took in the last invoke of `handle` (test hook, not TIDL-RT API):
 * 0 zero copy, 1 memcpy, 2 reformat. Returns 0, or -1 for an unknown handle or short arrays. */
int32_t standin_last_paths(void *handle, int32_t *in_paths, int32_t n_in, int32_t *out_paths, int32_t n_out) {
    int k = find_handle(handle);
    if (k < 0 || n_in < g_handles[k]->num_in || n_out < g_handles[k]->num_out) return -1;
    memcpy(in_paths, g_handles[k]->paths_in, sizeof(int32_t) * (size_t)g_handles[k]->num_in);
    memcpy(out_paths, g_handles[k]->paths_out, sizeof(int32_t) * (size_t)g_handles[k]->num_out);
    return 0;
}

/* ---- shared memory and DDR statistics (absent from older libraries) ---------------------------- */

#if !defined(STANDIN_NO_SHARED)
int32_t TIDLRT_getDdrStats(uint64_t *read_bytes, uint64_t *write_bytes) {
    if (read_bytes == NULL || write_bytes == NULL) return fail("getDdrStats: NULL pointer");
    *read_bytes = g_ddr_read;
    *write_bytes = g_ddr_write;
    return 0;
}
#endif

#if !defined(STANDIN_NO_SHARED_MEM)
typedef struct {
    void *raw;
    uint8_t *start;
    size_t size, raw_size;
} shared_block_t;

static shared_block_t g_shared[STANDIN_MAX_SHARED];

void *TIDLRT_allocSharedMem(int32_t alignment, int32_t size) {
    if (size < 0 || alignment < 1 || (alignment & (alignment - 1))) {
        fail("allocSharedMem: alignment %d (a power of two) / size %d (>= 0)", alignment, size);
        return NULL;
    }
    for (int k = 0; k < STANDIN_MAX_SHARED; k++) {
        if (g_shared[k].raw != NULL) continue;
#if defined(STANDIN_BOARD)
        void *raw = board_heap_alloc((size_t)size + (size_t)alignment);
#else
        void *raw = malloc((size_t)size + (size_t)alignment);
#endif
        if (!raw) return NULL;
        uintptr_t a = ((uintptr_t)raw + (uintptr_t)alignment - 1) & ~(uintptr_t)(alignment - 1);
        uint8_t *p = (uint8_t *)a;
        for (int32_t i = 0; i < size; i++) p[i] = (uint8_t)(0x80u | ((uint32_t)i * 37u & 0x7Fu)); /* dirty */
        g_shared[k].raw = raw;
        g_shared[k].start = p;
        g_shared[k].size = (size_t)size;
        g_shared[k].raw_size = (size_t)size + (size_t)alignment;
        return p;
    }
    fail("allocSharedMem: all %d shared blocks in use", STANDIN_MAX_SHARED);
    return NULL;
}

void TIDLRT_freeSharedMem(void *ptr) {
    for (int k = 0; k < STANDIN_MAX_SHARED; k++) {
        if (g_shared[k].raw != NULL && g_shared[k].start == (uint8_t *)ptr) {
#if defined(STANDIN_BOARD)
            munmap(g_shared[k].raw, g_shared[k].raw_size);
#else
            free(g_shared[k].raw);
#endif
            g_shared[k].raw = NULL;
            g_shared[k].start = NULL;
            g_shared[k].size = 0;
            return;
        }
    }
    fail("freeSharedMem: %p is not a live shared block (freed twice?)", ptr);
}

int32_t TIDLRT_isSharedMem(void *ptr) {
    const uint8_t *p = ptr;
    for (int k = 0; k < STANDIN_MAX_SHARED; k++) {
        const shared_block_t *b = &g_shared[k];
        if (b->raw != NULL && p >= b->start && (p < b->start + b->size || p == b->start)) return 1;
    }
    return 0;
}
#endif
