/* A stand-in for libcudart.so.13 for the CPU call benchmark (bench/benches/calls.rs): the few
 * functions it calls, each returning at once, so that what callgrind counts is the caller's
 * overhead. Not a CUDA runtime: nothing here talks to a GPU. */
int cudaRuntimeGetVersion(int *version) { *version = 13020; return 0; }
int cudaDriverGetVersion(int *version) { *version = 13020; return 0; }
int cudaGetDevice(int *device) { *device = 0; return 0; }
int cudaDeviceGetAttribute(int *value, int attr, int device) { *value = attr + device; return 0; }
int cudaGetDeviceCount(int *count) { *count = 1; return 0; }
const char *cudaGetErrorName(int code) { (void)code; return "cudaErrorStandIn"; }
const char *cudaGetErrorString(int code) { (void)code; return "stand-in error"; }
