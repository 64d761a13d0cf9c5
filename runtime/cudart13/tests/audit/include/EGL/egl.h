/* Stand-in for <EGL/egl.h>: what cuda_egl_interop.h uses (EGLint is khronos_int32_t). */
#ifndef __egl_h_
#define __egl_h_
typedef int EGLint;
#endif
