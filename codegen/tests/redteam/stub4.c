/* stub3 with a working version call (stub3's failing one now refuses the library): a CUDA 13.2
 * runtime whose calls fail; error name not UTF-8; cudaMalloc returns a code the table knows (2). */
#include <stddef.h>
int cudaRuntimeGetVersion(int *v) { *v = 13020; return 0; }
int cudaGetDeviceCount(int *count) { (void)count; return -1; }
int cudaMalloc(void **p, size_t n) { (void)n; *p = (void*)0x1; return 2; }
const char *cudaGetErrorName(int e) { (void)e; return "cuda\xff\xfe"; }
const char *cudaGetErrorString(int e) { (void)e; return "bad"; }
