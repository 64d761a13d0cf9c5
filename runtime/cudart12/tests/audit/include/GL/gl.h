/* Stand-in for <GL/gl.h>: what cuda_gl_interop.h uses (Khronos gl.h types). */
#ifndef __gl_h_
#define __gl_h_
#define GL_VERSION 0x1F02
typedef unsigned int GLenum;
typedef unsigned int GLuint;
#endif
