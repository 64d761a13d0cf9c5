/* Stand-in for <EGL/eglext.h>: the EGL image, stream and sync handle types. */
#ifndef __eglext_h_
#define __eglext_h_
typedef void *EGLImageKHR;
typedef void *EGLStreamKHR;
typedef void *EGLSyncKHR;
#endif
