/* The C baseline of the GPU call benchmark (bench/src/bin/gpu-bench.rs measures the same
 * things through cudart13 and cudarc). Built on the GPU machine by scripts/gpu-bench.sh:
 *   nvcc -O2 -cudart shared -o gpu_bench_shared bench/c/gpu_bench.cu
 *   nvcc -O2 -cudart static -o gpu_bench_static bench/c/gpu_bench.cu
 * Prints one line per benchmark, `LABEL<TAB>name<TAB>median<TAB>unit`, LABEL from argv[1].
 * The kernel is the same PTX text the Rust binary loads (cudaLibraryLoadData); the native
 * `<<<>>>` launch of an nvcc-compiled empty kernel is reported as launch_kernel/native.
 * With two GPUs that can access each other, peer_copy_pool_256MiB copies a stream-ordered
 * (pool) buffer of device 0 to one of device 1 on a stream of device 0, after what a C
 * program does for full speed: peer access both ways and each default pool's access granted
 * to the other device (cudaMemPoolSetAccess); with fewer it is not printed. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char PTX[] =
    "\n.version 7.0\n.target sm_70\n.address_size 64\n.visible .entry empty()\n{\n    ret;\n}\n";

__global__ void native_empty(void) {}

#define CHECK(x)                                                                         \
    do {                                                                                 \
        cudaError_t e_ = (x);                                                            \
        if (e_ != cudaSuccess) {                                                         \
            fprintf(stderr, "gpu_bench: %s: %s (%s)\n", #x, cudaGetErrorName(e_),        \
                    cudaGetErrorString(e_));                                             \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, n, sizeof(double), cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

#define MIB (1u << 20)
#define COPY_BYTES (256u * MIB)
#define MAX_REPS 64
#define NBENCH 11
/* The pinned host-to-device copy (its device-to-host twin is run too) and the peer copy. */
#define MEMCPY_BENCH 9
#define PEER_BENCH 10

static const char *NAMES[NBENCH] = {
    "get_device", "device_get_attribute", "stream_query", "event_record",
    "malloc_async+free_async", "malloc+free", "graph_launch", "launch_kernel",
    "launch_kernel/native", "memcpy_h2d_pinned_256MiB", "peer_copy_pool_256MiB"};

static cudaStream_t stream;
static cudaEvent_t event;
static cudaKernel_t kernel;
static cudaGraphExec_t exec;
static void *d_buf, *h_buf;
/* Pool buffers of devices 0 and 1 (NULL with fewer than two devices able to reach each other). */
static void *peer_src, *peer_dst;

/* ns per call, or GB/s for the copies. */
static double run_one(int which, int d2h) {
    dim3 one(1, 1, 1);
    double t0 = now_ns(), t;
    int k, i, v;
    switch (which) {
    case 0:
        k = 100000;
        for (i = 0; i < k; i++) CHECK(cudaGetDevice(&v));
        break;
    case 1:
        k = 100000;
        for (i = 0; i < k; i++) CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0));
        break;
    case 2:
        k = 100000;
        for (i = 0; i < k; i++) CHECK(cudaStreamQuery(stream));
        break;
    case 3:
        k = 10000;
        for (i = 0; i < k; i++) CHECK(cudaEventRecord(event, stream));
        CHECK(cudaStreamSynchronize(stream));
        break;
    case 4:
        k = 10000;
        for (i = 0; i < k; i++) {
            void *p;
            CHECK(cudaMallocAsync(&p, MIB, stream));
            CHECK(cudaFreeAsync(p, stream));
        }
        CHECK(cudaStreamSynchronize(stream));
        break;
    case 5:
        k = 1000;
        for (i = 0; i < k; i++) {
            void *p;
            CHECK(cudaMalloc(&p, MIB));
            CHECK(cudaFree(p));
        }
        break;
    case 6:
        k = 10000;
        for (i = 0; i < k; i++) CHECK(cudaGraphLaunch(exec, stream));
        CHECK(cudaStreamSynchronize(stream));
        break;
    case 7:
        k = 10000;
        for (i = 0; i < k; i++) CHECK(cudaLaunchKernel((const void *)kernel, one, one, NULL, 0, stream));
        CHECK(cudaStreamSynchronize(stream));
        break;
    case 8:
        k = 10000;
        for (i = 0; i < k; i++) native_empty<<<1, 1, 0, stream>>>();
        CHECK(cudaGetLastError());
        CHECK(cudaStreamSynchronize(stream));
        break;
    case PEER_BENCH:
        if (!peer_src) return -1.0;
        k = 5;
        for (i = 0; i < k; i++)
            CHECK(cudaMemcpyAsync(peer_dst, peer_src, COPY_BYTES, cudaMemcpyDeviceToDevice, stream));
        CHECK(cudaStreamSynchronize(stream));
        t = now_ns() - t0;
        return (double)COPY_BYTES * k / t;
    default:
        k = 5;
        for (i = 0; i < k; i++) {
            if (d2h)
                CHECK(cudaMemcpy(h_buf, d_buf, COPY_BYTES, cudaMemcpyDeviceToHost));
            else
                CHECK(cudaMemcpy(d_buf, h_buf, COPY_BYTES, cudaMemcpyHostToDevice));
        }
        t = now_ns() - t0;
        return (double)COPY_BYTES * k / t; /* bytes per ns = GB/s */
    }
    return (now_ns() - t0) / k;
}

/* Peer access from `device` to `peer` (already enabled is fine: the Rust binary may have). */
static void enable_peer(int device, int peer) {
    cudaError_t e;
    CHECK(cudaSetDevice(device));
    e = cudaDeviceEnablePeerAccess(peer, 0);
    if (e == cudaErrorPeerAccessAlreadyEnabled)
        (void)cudaGetLastError();
    else
        CHECK(e);
}

/* Devices 0 and 1 reaching each other, their default pools open to each other, and a pool
 * buffer on each; nothing with fewer than two such devices. Leaves device 0 current. */
static void setup_peer(void) {
    int n = 0, can01 = 0, can10 = 0, d;
    CHECK(cudaGetDeviceCount(&n));
    if (n < 2) return;
    CHECK(cudaDeviceCanAccessPeer(&can01, 0, 1));
    CHECK(cudaDeviceCanAccessPeer(&can10, 1, 0));
    if (!can01 || !can10) return;
    enable_peer(0, 1);
    enable_peer(1, 0);
    for (d = 0; d < 2; d++) {
        cudaMemPool_t pool;
        cudaMemAccessDesc access;
        memset(&access, 0, sizeof access);
        access.location.type = cudaMemLocationTypeDevice;
        access.location.id = 1 - d;
        access.flags = cudaMemAccessFlagsProtReadWrite;
        CHECK(cudaDeviceGetDefaultMemPool(&pool, d));
        CHECK(cudaMemPoolSetAccess(pool, &access, 1));
    }
    cudaStream_t s1;
    CHECK(cudaSetDevice(1));
    CHECK(cudaStreamCreate(&s1));
    CHECK(cudaMallocAsync(&peer_dst, COPY_BYTES, s1));
    CHECK(cudaMemsetAsync(peer_dst, 0, COPY_BYTES, s1));
    CHECK(cudaStreamSynchronize(s1));
    CHECK(cudaStreamDestroy(s1));
    CHECK(cudaSetDevice(0));
    CHECK(cudaMallocAsync(&peer_src, COPY_BYTES, stream));
    CHECK(cudaMemsetAsync(peer_src, 1, COPY_BYTES, stream));
    CHECK(cudaMemcpyAsync(peer_dst, peer_src, COPY_BYTES, cudaMemcpyDeviceToDevice, stream));
    CHECK(cudaStreamSynchronize(stream));
}

/* The handles and buffers every benchmark uses, made as a C program makes them. */
static void setup(void) {
    cudaLibrary_t lib;
    cudaGraph_t graph;
    dim3 one(1, 1, 1);
    CHECK(cudaSetDevice(0));
    CHECK(cudaStreamCreate(&stream));
    CHECK(cudaEventCreate(&event));
    CHECK(cudaLibraryLoadData(&lib, PTX, NULL, NULL, 0, NULL, NULL, 0));
    CHECK(cudaLibraryGetKernel(&kernel, lib, "empty"));
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    CHECK(cudaLaunchKernel((const void *)kernel, one, one, NULL, 0, stream));
    CHECK(cudaStreamEndCapture(stream, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaMallocHost(&h_buf, COPY_BYTES));
    memset(h_buf, 1, COPY_BYTES);
    CHECK(cudaMalloc(&d_buf, COPY_BYTES));
    /* Warm up every path once. */
    CHECK(cudaLaunchKernel((const void *)kernel, one, one, NULL, 0, stream));
    native_empty<<<1, 1, 0, stream>>>();
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaStreamSynchronize(stream));
    setup_peer();
}

#ifdef GPU_BENCH_LIB
/* Built with -DGPU_BENCH_LIB -shared, the same loops for the Rust binary to load and run in
 * its own process, in turn with its own (GPU_BENCH_C_LIB in bench/src/bin/gpu-bench.rs):
 * both then share one process, one runtime and one context, and each pair of loops runs
 * back to back, so the comparison does not depend on how fast a process or a moment is. */
extern "C" void gpu_bench_c_setup(void) { setup(); }
extern "C" double gpu_bench_c_run(int which, int d2h) { return run_one(which, d2h); }
extern "C" const char *gpu_bench_c_name(int which) {
    return which >= 0 && which < NBENCH ? NAMES[which] : NULL;
}
#else
int main(int argc, char **argv) {
    const char *label = argc > 1 ? argv[1] : "c";
    const char *env = getenv("GPU_BENCH_REPS");
    int reps = env ? atoi(env) : 7, r, b;
    static double results[NBENCH + 1][MAX_REPS];
    if (reps < 1) reps = 1;
    if (reps > MAX_REPS) reps = MAX_REPS;
    setup();

    /* GPU_BENCH_ONLY=a,b: only the benchmarks of these names. */
    const char *only = getenv("GPU_BENCH_ONLY");
    int wanted[NBENCH + 1];
    for (b = 0; b <= NBENCH; b++) {
        const char *name = b < NBENCH ? NAMES[b] : "memcpy_d2h_pinned_256MiB";
        wanted[b] = 1;
        if (only && *only) {
            char words[256], *w, *save = NULL;
            snprintf(words, sizeof words, "%s", only);
            wanted[b] = 0;
            for (w = strtok_r(words, ",", &save); w; w = strtok_r(NULL, ",", &save))
                if (strcmp(name, w) == 0) wanted[b] = 1;
        }
    }
    for (r = 0; r < reps; r++) {
        for (b = 0; b < NBENCH; b++)
            if (wanted[b]) results[b][r] = run_one(b, 0);
        if (wanted[NBENCH]) results[NBENCH][r] = run_one(MEMCPY_BENCH, 1);
    }
    for (b = 0; b < MEMCPY_BENCH; b++)
        if (wanted[b]) printf("%s\t%s\t%.1f\tns\n", label, NAMES[b], median(results[b], reps));
    for (b = MEMCPY_BENCH; b < NBENCH; b++)
        if (wanted[b] && (b != PEER_BENCH || peer_src))
            printf("%s\t%s\t%.2f\tGB/s\n", label, NAMES[b], median(results[b], reps));
    if (wanted[NBENCH])
        printf("%s\tmemcpy_d2h_pinned_256MiB\t%.2f\tGB/s\n", label, median(results[NBENCH], reps));
    return 0;
}
#endif
