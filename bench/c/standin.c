/* A stand-in for libcudart.so.13 for the CPU call benchmark (bench/benches/calls.rs): the few
 * functions it calls, each returning at once, so that what callgrind counts is the caller's
 * overhead. Not a CUDA runtime: nothing here talks to a GPU. The safe layer's variants (a
 * builder launch, a buffer's allocation and free) need a module, a kernel of two parameters
 * (a pointer and a 4-byte value, as cudaFuncGetParamInfo says), a stream and an allocator. */
#include <stddef.h>
int cudaRuntimeGetVersion(int *version) { *version = 13020; return 0; }
int cudaDriverGetVersion(int *version) { *version = 13020; return 0; }
int cudaGetDevice(int *device) { *device = 0; return 0; }
int cudaDeviceGetAttribute(int *value, int attr, int device) { *value = attr + device; return 0; }
int cudaGetDeviceCount(int *count) { *count = 1; return 0; }
const char *cudaGetErrorName(int code) { (void)code; return "cudaErrorStandIn"; }
const char *cudaGetErrorString(int code) { (void)code; return "stand-in error"; }

typedef struct { unsigned x, y, z; } dim3;
static char memory[1 << 16];
int cudaSetDevice(int device) { (void)device; return 0; }
int cudaLibraryLoadData(void **library, const void *code, void *jit_options, void **jit_values,
                        unsigned n_jit, void *options, void **values, unsigned n_options) {
    (void)code, (void)jit_options, (void)jit_values, (void)n_jit, (void)options, (void)values,
        (void)n_options;
    *library = (void *)0x1000;
    return 0;
}
int cudaLibraryGetKernel(void **kernel, void *library, const char *name) {
    (void)library, (void)name;
    *kernel = (void *)0x2000;
    return 0;
}
int cudaLibraryUnload(void *library) { (void)library; return 0; }
int cudaStreamCreateWithFlags(void **stream, unsigned flags) {
    (void)flags;
    *stream = (void *)0x3000;
    return 0;
}
int cudaStreamDestroy(void *stream) { (void)stream; return 0; }
int cudaStreamSynchronize(void *stream) { (void)stream; return 0; }
int cudaDeviceSynchronize(void) { return 0; }
int cudaThreadExchangeStreamCaptureMode(int *mode) { (void)mode; return 0; }
int cudaMallocAsync(void **ptr, size_t bytes, void *stream) {
    (void)bytes, (void)stream;
    *ptr = memory;
    return 0;
}
int cudaFreeAsync(void *ptr, void *stream) { (void)ptr, (void)stream; return 0; }
int cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args, size_t shared,
                     void *stream) {
    (void)func, (void)grid, (void)block, (void)args, (void)shared, (void)stream;
    return 0;
}
int cudaFuncGetParamInfo(const void *func, size_t index, size_t *offset, size_t *size) {
    (void)func;
    if (index >= 2) return 1; /* cudaErrorInvalidValue: past the last parameter */
    *offset = index * 8;
    *size = index == 0 ? 8 : 4;
    return 0;
}
