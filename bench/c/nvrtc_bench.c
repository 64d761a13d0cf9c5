/* The C baseline of the NVRTC benchmark (bench/src/bin/nvrtc-bench.rs measures the same
 * steps through nvrtc13 and cudart13): compile a SAXPY kernel from CUDA C++ to PTX with NVRTC,
 * load the PTX (cudaLibraryLoadData + cudaLibraryGetKernel), launch it once on 1M elements
 * and synchronise. Plain C, built on the GPU machine by scripts/nvrtc-bench.sh:
 *   cc -O2 -I<cuda>/include bench/c/nvrtc_bench.c -L<cuda>/lib64 -lnvrtc -lcudart -o nvrtc_bench_c
 * (on a machine without a GPU, against the wheels' headers and libraries, for the compile step
 * alone: NVRTC_BENCH_COMPILE_ONLY=1).
 * Prints one line per step, `LABEL<TAB>name<TAB>median<TAB>ms`, LABEL from argv[1]; the
 * median of NVRTC_BENCH_REPS (default 9) repetitions, each of the whole sequence. The
 * architecture is compute_<major><minor> of device 0 (compute_75 when compile-only), or
 * NVRTC_BENCH_ARCH. */
#include <cuda_runtime_api.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char SOURCE[] =
    "extern \"C\" __global__ void saxpy(float a, const float *x, float *y, unsigned n) {\n"
    "    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) y[i] = a * x[i] + y[i];\n"
    "}\n";

#define N (1u << 20)
#define MAX_REPS 64

#define CHECK_CUDA(x)                                                                    \
    do {                                                                                 \
        cudaError_t e_ = (x);                                                            \
        if (e_ != cudaSuccess) {                                                         \
            fprintf(stderr, "nvrtc_bench: %s: %s\n", #x, cudaGetErrorName(e_));           \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

#define CHECK_NVRTC(x)                                                                   \
    do {                                                                                 \
        nvrtcResult r_ = (x);                                                            \
        if (r_ != NVRTC_SUCCESS) {                                                       \
            fprintf(stderr, "nvrtc_bench: %s: %s\n", #x, nvrtcGetErrorString(r_));        \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, n, sizeof(double), cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

/* CUDA C++ → PTX (malloc'd, NUL-terminated), as an application does it. */
static char *compile(const char *arch_option) {
    nvrtcProgram prog;
    const char *options[1] = {arch_option};
    size_t size;
    char *ptx;
    CHECK_NVRTC(nvrtcCreateProgram(&prog, SOURCE, "saxpy.cu", 0, NULL, NULL));
    CHECK_NVRTC(nvrtcCompileProgram(prog, 1, options));
    CHECK_NVRTC(nvrtcGetPTXSize(prog, &size));
    ptx = (char *)malloc(size);
    if (!ptx) exit(1);
    CHECK_NVRTC(nvrtcGetPTX(prog, ptx));
    CHECK_NVRTC(nvrtcDestroyProgram(&prog));
    return ptx;
}

int main(int argc, char **argv) {
    const char *label = argc > 1 ? argv[1] : "c";
    const char *env = getenv("NVRTC_BENCH_REPS");
    const char *only = getenv("NVRTC_BENCH_COMPILE_ONLY");
    int compile_only = only && strcmp(only, "1") == 0;
    int reps = env ? atoi(env) : 9, r;
    static double t_compile[MAX_REPS], t_load[MAX_REPS], t_launch[MAX_REPS], t_all[MAX_REPS];
    char arch[64];
    float *x = NULL, *y = NULL, a = 2.0f;
    unsigned n = N;
    cudaStream_t stream = NULL;
    if (reps < 1) reps = 1;
    if (reps > MAX_REPS) reps = MAX_REPS;
    if (getenv("NVRTC_BENCH_ARCH")) {
        snprintf(arch, sizeof arch, "--gpu-architecture=%s", getenv("NVRTC_BENCH_ARCH"));
    } else if (compile_only) {
        snprintf(arch, sizeof arch, "--gpu-architecture=compute_75");
    } else {
        int major, minor;
        CHECK_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
        CHECK_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0));
        snprintf(arch, sizeof arch, "--gpu-architecture=compute_%d%d", major, minor);
    }
    if (!compile_only) {
        CHECK_CUDA(cudaSetDevice(0));
        CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        CHECK_CUDA(cudaMalloc((void **)&x, N * sizeof(float)));
        CHECK_CUDA(cudaMalloc((void **)&y, N * sizeof(float)));
        CHECK_CUDA(cudaMemset(x, 0, N * sizeof(float)));
        CHECK_CUDA(cudaMemset(y, 0, N * sizeof(float)));
    }
    /* One untimed round: library loads and first-call costs of both libraries. */
    free(compile(arch));
    for (r = 0; r < reps; r++) {
        double t0 = now_ms(), t1, t2, t3;
        char *ptx = compile(arch);
        t1 = now_ms();
        t_compile[r] = t1 - t0;
        if (compile_only) {
            free(ptx);
            continue;
        }
        cudaLibrary_t lib;
        cudaKernel_t kernel;
        CHECK_CUDA(cudaLibraryLoadData(&lib, ptx, NULL, NULL, 0, NULL, NULL, 0));
        CHECK_CUDA(cudaLibraryGetKernel(&kernel, lib, "saxpy"));
        t2 = now_ms();
        {
            void *args[4] = {&a, &x, &y, &n};
            dim3 grid = {(N + 255) / 256, 1, 1}, block = {256, 1, 1};
            CHECK_CUDA(cudaLaunchKernel((const void *)kernel, grid, block, args, 0, stream));
            CHECK_CUDA(cudaStreamSynchronize(stream));
        }
        t3 = now_ms();
        t_load[r] = t2 - t1;
        t_launch[r] = t3 - t2;
        t_all[r] = t3 - t0;
        CHECK_CUDA(cudaLibraryUnload(lib));
        free(ptx);
    }
    printf("%s\tnvrtc_compile_ptx\t%.3f\tms\n", label, median(t_compile, reps));
    if (!compile_only) {
        printf("%s\tmodule_load\t%.3f\tms\n", label, median(t_load, reps));
        printf("%s\tfirst_launch+sync\t%.3f\tms\n", label, median(t_launch, reps));
        printf("%s\tcompile+load+launch\t%.3f\tms\n", label, median(t_all, reps));
    }
    return 0;
}
