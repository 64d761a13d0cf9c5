/* Stand-in for <vdpau/vdpau.h>: what cuda_vdpau_interop.h uses (libvdpau's types). */
#ifndef _VDPAU_H
#define _VDPAU_H
#include <stdint.h>
typedef uint32_t VdpDevice;
typedef uint32_t VdpVideoSurface;
typedef uint32_t VdpOutputSurface;
typedef uint32_t VdpFuncId;
typedef unsigned int VdpStatus; /* an enum of non-negative values in libvdpau */
typedef VdpStatus VdpGetProcAddress(VdpDevice device, VdpFuncId function_id, void **function_pointer);
#endif
