/* Devices: count, the current device (per host thread), properties and attributes of an
 * H100-like part, peer access, limits, PCI bus ids, cudaDeviceReset (which destroys the
 * device's streams, events, pools, executable graphs, arrays, textures, surfaces and memory:
 * handles the application still holds become dead, and later use is a hazard), and CUDA
 * arrays, texture and surface objects. */
#define _GNU_SOURCE
#include "emu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct emu_device emu_devices[EMU_MAX_DEVICES];

int emu_valid_device(int d) { return d >= 0 && d < emu_cfg.devices; }

static cudaError_t no_device(void) {
    return emu_cfg.devices ? cudaErrorInvalidDevice : cudaErrorNoDevice;
}

static cudaError_t cudaGetDeviceCount_impl(int *count) {
    if (!count) return cudaErrorInvalidValue;
    if (!emu_cfg.devices) return cudaErrorNoDevice;
    *count = emu_cfg.devices;
    return cudaSuccess;
}
EMU_API(cudaGetDeviceCount, (int *count), (count))

static cudaError_t cudaGetDevice_impl(int *device) {
    if (!device) return cudaErrorInvalidValue;
    if (!emu_cfg.devices) return cudaErrorNoDevice;
    *device = emu_self()->device;
    return cudaSuccess;
}
EMU_API(cudaGetDevice, (int *device), (device))

static cudaError_t cudaSetDevice_impl(int device) {
    if (!emu_valid_device(device)) return no_device();
    emu_self()->device = device;
    return cudaSuccess;
}
EMU_API(cudaSetDevice, (int device), (device))

static int attribute(int d, enum cudaDeviceAttr attr) {
    switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: return 1024;
    case cudaDevAttrMaxBlockDimX: return 1024;
    case cudaDevAttrMaxBlockDimY: return 1024;
    case cudaDevAttrMaxBlockDimZ: return 64;
    case cudaDevAttrMaxGridDimX: return 2147483647;
    case cudaDevAttrMaxGridDimY: return 65535;
    case cudaDevAttrMaxGridDimZ: return 65535;
    case cudaDevAttrMaxSharedMemoryPerBlock: return 48 * 1024;
    case cudaDevAttrTotalConstantMemory: return 64 * 1024;
    case cudaDevAttrWarpSize: return 32;
    case cudaDevAttrMaxRegistersPerBlock: return 65536;
    case cudaDevAttrClockRate: return 1980000;
    case cudaDevAttrMultiProcessorCount: return 132;
    case cudaDevAttrIntegrated: return 0;
    case cudaDevAttrCanMapHostMemory: return 1;
    case cudaDevAttrConcurrentKernels: return 1;
    case cudaDevAttrEccEnabled: return 1;
    case cudaDevAttrPciBusId: return d;
    case cudaDevAttrPciDeviceId: return 0;
    case cudaDevAttrPciDomainId: return 0;
    case cudaDevAttrMemoryClockRate: return 2619000;
    case cudaDevAttrGlobalMemoryBusWidth: return 5120;
    case cudaDevAttrL2CacheSize: return 50 * 1024 * 1024;
    case cudaDevAttrMaxThreadsPerMultiProcessor: return 2048;
    case cudaDevAttrAsyncEngineCount: return 3;
    case cudaDevAttrUnifiedAddressing: return 1;
    case cudaDevAttrComputeCapabilityMajor: return 9;
    case cudaDevAttrComputeCapabilityMinor: return 0;
    case cudaDevAttrStreamPrioritiesSupported: return 1;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: return 228 * 1024;
    case cudaDevAttrMaxRegistersPerMultiprocessor: return 65536;
    case cudaDevAttrManagedMemory: return 1;
    case cudaDevAttrConcurrentManagedAccess: return emu_cfg.concurrent_managed[d];
    case cudaDevAttrPageableMemoryAccess: return 0;
    case cudaDevAttrCooperativeLaunch: return 1;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: return 227 * 1024;
    case cudaDevAttrMaxBlocksPerMultiprocessor: return 32;
    case cudaDevAttrMemoryPoolsSupported: return 1;
    case cudaDevAttrClusterLaunch: return 1;
    default: return 0;
    }
}

static cudaError_t cudaDeviceGetAttribute_impl(int *value, enum cudaDeviceAttr attr, int device) {
    if (!value) return cudaErrorInvalidValue;
    if (!emu_valid_device(device)) return no_device();
    *value = attribute(device, attr);
    return cudaSuccess;
}
EMU_API(cudaDeviceGetAttribute, (int *value, enum cudaDeviceAttr attr, int device),
        (value, attr, device))

static cudaError_t cudaGetDeviceProperties_impl(struct cudaDeviceProp *prop, int d) {
    if (!prop) return cudaErrorInvalidValue;
    if (!emu_valid_device(d)) return no_device();
    memset(prop, 0, sizeof *prop);
    snprintf(prop->name, sizeof prop->name, "CUDA emulator device %d", d);
    for (int i = 0; i < 16; i++) prop->uuid.bytes[i] = (char)(0xE0 + i + 16 * d);
    prop->totalGlobalMem = 16ULL << 30;
    prop->sharedMemPerBlock = (size_t)attribute(d, cudaDevAttrMaxSharedMemoryPerBlock);
    prop->regsPerBlock = attribute(d, cudaDevAttrMaxRegistersPerBlock);
    prop->warpSize = 32;
    prop->memPitch = 2147483647;
    prop->maxThreadsPerBlock = 1024;
    prop->maxThreadsDim[0] = 1024;
    prop->maxThreadsDim[1] = 1024;
    prop->maxThreadsDim[2] = 64;
    prop->maxGridSize[0] = 2147483647;
    prop->maxGridSize[1] = 65535;
    prop->maxGridSize[2] = 65535;
    prop->totalConstMem = 64 * 1024;
    prop->major = 9;
    prop->minor = 0;
    prop->textureAlignment = 512;
    prop->texturePitchAlignment = 32;
    prop->multiProcessorCount = 132;
    prop->canMapHostMemory = 1;
    prop->concurrentKernels = 1;
    prop->ECCEnabled = 1;
    prop->pciBusID = d;
    prop->asyncEngineCount = 3;
    prop->unifiedAddressing = 1;
    prop->memoryBusWidth = 5120;
    prop->l2CacheSize = 50 * 1024 * 1024;
    prop->maxThreadsPerMultiProcessor = 2048;
    prop->streamPrioritiesSupported = 1;
    prop->sharedMemPerMultiprocessor = 228 * 1024;
    prop->regsPerMultiprocessor = 65536;
    prop->managedMemory = 1;
    prop->concurrentManagedAccess = emu_cfg.concurrent_managed[d];
    prop->cooperativeLaunch = 1;
    prop->sharedMemPerBlockOptin = 227 * 1024;
    prop->maxBlocksPerMultiProcessor = 32;
    prop->memoryPoolsSupported = 1;
    prop->clusterLaunch = 1;
    return cudaSuccess;
}
EMU_API(cudaGetDeviceProperties, (struct cudaDeviceProp * prop, int device), (prop, device))

static cudaError_t cudaDeviceCanAccessPeer_impl(int *canAccessPeer, int device, int peerDevice) {
    if (!canAccessPeer) return cudaErrorInvalidValue;
    if (!emu_valid_device(device) || !emu_valid_device(peerDevice)) return cudaErrorInvalidDevice;
    *canAccessPeer = device != peerDevice;
    return cudaSuccess;
}
EMU_API(cudaDeviceCanAccessPeer, (int *canAccessPeer, int device, int peerDevice),
        (canAccessPeer, device, peerDevice))

static cudaError_t cudaDeviceEnablePeerAccess_impl(int peerDevice, unsigned int flags) {
    int d = emu_self()->device;
    if (flags != 0) return cudaErrorInvalidValue;
    if (!emu_valid_device(d) || !emu_valid_device(peerDevice) || d == peerDevice)
        return cudaErrorInvalidDevice;
    if (emu_devices[d].peer[peerDevice]) return cudaErrorPeerAccessAlreadyEnabled;
    emu_devices[d].peer[peerDevice] = 1;
    return cudaSuccess;
}
EMU_API(cudaDeviceEnablePeerAccess, (int peerDevice, unsigned int flags), (peerDevice, flags))

static cudaError_t cudaDeviceDisablePeerAccess_impl(int peerDevice) {
    int d = emu_self()->device;
    if (!emu_valid_device(d) || !emu_valid_device(peerDevice) || d == peerDevice)
        return cudaErrorInvalidDevice;
    if (!emu_devices[d].peer[peerDevice]) return cudaErrorPeerAccessNotEnabled;
    emu_devices[d].peer[peerDevice] = 0;
    return cudaSuccess;
}
EMU_API(cudaDeviceDisablePeerAccess, (int peerDevice), (peerDevice))

static const size_t default_limits[] = {1024, 1 << 20, 8 << 20, 2, 2048, 64, 0};

static cudaError_t cudaDeviceGetLimit_impl(size_t *pValue, enum cudaLimit limit) {
    if (!pValue || (unsigned)limit >= sizeof default_limits / sizeof default_limits[0])
        return cudaErrorUnsupportedLimit;
    int d = emu_self()->device;
    if (!emu_valid_device(d)) return no_device();
    size_t v = emu_devices[d].limits[limit];
    *pValue = v ? v - 1 : default_limits[limit];
    return cudaSuccess;
}
EMU_API(cudaDeviceGetLimit, (size_t * pValue, enum cudaLimit limit), (pValue, limit))

static cudaError_t cudaDeviceSetLimit_impl(enum cudaLimit limit, size_t value) {
    if ((unsigned)limit >= sizeof default_limits / sizeof default_limits[0])
        return cudaErrorUnsupportedLimit;
    int d = emu_self()->device;
    if (!emu_valid_device(d)) return no_device();
    emu_devices[d].limits[limit] = value + 1; /* 0 means "not set" */
    return cudaSuccess;
}
EMU_API(cudaDeviceSetLimit, (enum cudaLimit limit, size_t value), (limit, value))

static cudaError_t cudaDeviceGetStreamPriorityRange_impl(int *least, int *greatest) {
    if (least) *least = 0;
    if (greatest) *greatest = -5;
    return cudaSuccess;
}
EMU_API(cudaDeviceGetStreamPriorityRange, (int *leastPriority, int *greatestPriority),
        (leastPriority, greatestPriority))

/* Writes all `len` bytes the caller promised: the id, NUL-padded (the widest write the
 * contract allows, so a buffer smaller than `len` is overrun for certain). */
static cudaError_t cudaDeviceGetPCIBusId_impl(char *pciBusId, int len, int device) {
    if (!pciBusId || len <= 0) return cudaErrorInvalidValue;
    if (!emu_valid_device(device)) return cudaErrorInvalidDevice;
    char id[32];
    int n = snprintf(id, sizeof id, "0000:%02x:00.0", device);
    size_t copy = (size_t)n < (size_t)len - 1 ? (size_t)n : (size_t)len - 1;
    memcpy(pciBusId, id, copy);
    memset(pciBusId + copy, 0, (size_t)len - copy);
    return cudaSuccess;
}
EMU_API(cudaDeviceGetPCIBusId, (char *pciBusId, int len, int device), (pciBusId, len, device))

static cudaError_t cudaDeviceGetByPCIBusId_impl(int *device, const char *pciBusId) {
    if (!device || !pciBusId) return cudaErrorInvalidValue;
    unsigned domain, bus, dev, fn;
    char extra;
    if (sscanf(pciBusId, "%x:%x:%x.%x%c", &domain, &bus, &dev, &fn, &extra) != 4 &&
        sscanf(pciBusId, "%x:%x.%x%c", &bus, &dev, &fn, &extra) != 3)
        return cudaErrorInvalidValue;
    if (!emu_valid_device((int)bus) || dev != 0 || fn != 0) return cudaErrorInvalidDevice;
    *device = (int)bus;
    return cudaSuccess;
}
EMU_API(cudaDeviceGetByPCIBusId, (int *device, const char *pciBusId), (device, pciBusId))

static cudaError_t cudaDeviceReset_impl(void) {
    int d = emu_self()->device;
    if (!emu_valid_device(d)) return no_device();
    emu_wait_device(d);
    emu_stream_reset(d);
    for (size_t i = 0;; i++) {
        struct emu_handle *h = emu_handle_at(i);
        if (!h) break;
        if (!h->alive || h->device != d) continue;
        if (h->kind == K_EVENT || h->kind == K_TEXTURE || h->kind == K_SURFACE ||
            h->kind == K_ARRAY) {
            h->alive = 0;
            h->reset = 1;
        }
    }
    emu_graph_reset(d);
    emu_pools_reset(d);
    emu_memory_reset(d);
    memset(emu_devices[d].peer, 0, sizeof emu_devices[d].peer);
    memset(emu_devices[d].limits, 0, sizeof emu_devices[d].limits);
    return cudaSuccess;
}
EMU_API(cudaDeviceReset, (void), ())

/* ---- arrays, textures, surfaces ---- */

struct emu_array {
    struct emu_handle *h;
    struct emu_alloc *mem;
    struct cudaChannelFormatDesc desc;
    size_t width, height, elem;
    unsigned flags;
};

static size_t texel_bytes(const struct cudaChannelFormatDesc *d) {
    int bits = d->x + d->y + d->z + d->w;
    return bits > 0 && bits % 8 == 0 ? (size_t)bits / 8 : 0;
}

static cudaError_t cudaMallocArray_impl(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                                        size_t width, size_t height, unsigned int flags) {
    if (!array || !desc || width == 0) return cudaErrorInvalidValue;
    cudaError_t e = emu_capture_check_unsafe("cudaMallocArray");
    if (e != cudaSuccess) return e;
    size_t elem = texel_bytes(desc);
    size_t rows = height ? height : 1;
    if (!elem || width > (1u << 20) || rows > (1u << 20)) return cudaErrorInvalidValue;
    int d = emu_self()->device;
    if (!emu_valid_device(d)) return no_device();
    struct emu_alloc *mem = emu_alloc_new(width * rows * elem, M_ARRAY, d);
    if (!mem) return cudaErrorMemoryAllocation;
    struct emu_array *a = emu_xcalloc(1, sizeof *a);
    a->mem = mem;
    a->desc = *desc;
    a->width = width;
    a->height = height;
    a->elem = elem;
    a->flags = flags;
    a->h = emu_handle_new(K_ARRAY, a, d);
    *array = (cudaArray_t)a->h->value;
    return cudaSuccess;
}
EMU_API(cudaMallocArray,
        (cudaArray_t * array, const struct cudaChannelFormatDesc *desc, size_t width,
         size_t height, unsigned int flags),
        (array, desc, width, height, flags))

static cudaError_t cudaFreeArray_impl(cudaArray_t array) {
    if (!array) return cudaSuccess;
    cudaError_t e = emu_capture_check_unsafe("cudaFreeArray");
    if (e != cudaSuccess) return e;
    struct emu_array *a = emu_handle_take("cudaFreeArray", (uintptr_t)array, K_ARRAY);
    if (!a) return cudaErrorInvalidResourceHandle;
    emu_wait_device(a->h->device);
    a->h->alive = 0;
    emu_alloc_free(a->mem, "cudaFreeArray");
    return cudaSuccess;
}
EMU_API(cudaFreeArray, (cudaArray_t array), (array))

static cudaError_t cudaArrayGetInfo_impl(struct cudaChannelFormatDesc *desc,
                                         struct cudaExtent *extent, unsigned int *flags,
                                         cudaArray_t array) {
    struct emu_array *a = emu_handle_get("cudaArrayGetInfo", (uintptr_t)array, K_ARRAY);
    if (!a) return cudaErrorInvalidResourceHandle;
    if (desc) *desc = a->desc;
    if (extent) {
        extent->width = a->width;
        extent->height = a->height;
        extent->depth = 0;
    }
    if (flags) *flags = a->flags;
    return cudaSuccess;
}
EMU_API(cudaArrayGetInfo,
        (struct cudaChannelFormatDesc * desc, struct cudaExtent *extent, unsigned int *flags,
         cudaArray_t array),
        (desc, extent, flags, array))

/* A blocking 2-D copy between host memory and an array (rows of `width` bytes). */
static cudaError_t copy_2d(struct emu_array *a, size_t w_off, size_t h_off, void *host,
                           size_t pitch, size_t width, size_t height, int to_array,
                           const char *op) {
    size_t rows = a->height ? a->height : 1;
    size_t row_bytes = a->width * a->elem;
    if (w_off > row_bytes || width > row_bytes - w_off || h_off > rows ||
        height > rows - h_off || (height > 1 && pitch < width))
        return cudaErrorInvalidValue;
    cudaError_t e = emu_capture_check_unsafe(op);
    if (e != cudaSuccess) return e;
    emu_wait_device(a->h->device);
    for (size_t r = 0; r < height; r++) {
        char *cell = a->mem->base + (h_off + r) * row_bytes + w_off;
        char *line = (char *)host + r * pitch;
        if (to_array)
            emu_copy(op, cell, line, width, cudaMemcpyHostToDevice);
        else
            emu_copy(op, line, cell, width, cudaMemcpyDeviceToHost);
    }
    return cudaSuccess;
}

static cudaError_t cudaMemcpy2DToArray_impl(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                            const void *src, size_t spitch, size_t width,
                                            size_t height, enum cudaMemcpyKind kind) {
    if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDefault) return cudaErrorInvalidMemcpyDirection;
    struct emu_array *a = emu_handle_get("cudaMemcpy2DToArray", (uintptr_t)dst, K_ARRAY);
    if (!a) return cudaErrorInvalidResourceHandle;
    return copy_2d(a, wOffset, hOffset, (void *)src, spitch, width, height, 1,
                   "cudaMemcpy2DToArray");
}
EMU_API(cudaMemcpy2DToArray,
        (cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t spitch,
         size_t width, size_t height, enum cudaMemcpyKind kind),
        (dst, wOffset, hOffset, src, spitch, width, height, kind))

static cudaError_t cudaMemcpy2DFromArray_impl(void *dst, size_t dpitch, cudaArray_const_t src,
                                              size_t wOffset, size_t hOffset, size_t width,
                                              size_t height, enum cudaMemcpyKind kind) {
    if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDefault) return cudaErrorInvalidMemcpyDirection;
    struct emu_array *a = emu_handle_get("cudaMemcpy2DFromArray", (uintptr_t)src, K_ARRAY);
    if (!a) return cudaErrorInvalidResourceHandle;
    return copy_2d(a, wOffset, hOffset, dst, dpitch, width, height, 0, "cudaMemcpy2DFromArray");
}
EMU_API(cudaMemcpy2DFromArray,
        (void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset, size_t hOffset,
         size_t width, size_t height, enum cudaMemcpyKind kind),
        (dst, dpitch, src, wOffset, hOffset, width, height, kind))

struct emu_texture {
    struct emu_handle *h;
    struct cudaResourceDesc res;
    struct cudaTextureDesc tex;
};

static cudaError_t check_resource(const struct cudaResourceDesc *r, const char *op) {
    switch (r->resType) {
    case cudaResourceTypeArray:
        return emu_handle_get(op, (uintptr_t)r->res.array.array, K_ARRAY)
                   ? cudaSuccess
                   : cudaErrorInvalidResourceHandle;
    case cudaResourceTypeLinear:
        if (!r->res.linear.devPtr || !r->res.linear.sizeInBytes) return cudaErrorInvalidValue;
        return emu_access(op, r->res.linear.devPtr, r->res.linear.sizeInBytes, 0, 1)
                   ? cudaSuccess
                   : cudaErrorInvalidValue;
    case cudaResourceTypePitch2D:
        if (!r->res.pitch2D.devPtr || !r->res.pitch2D.height) return cudaErrorInvalidValue;
        return emu_access(op, r->res.pitch2D.devPtr,
                          r->res.pitch2D.pitchInBytes * r->res.pitch2D.height, 0, 1)
                   ? cudaSuccess
                   : cudaErrorInvalidValue;
    default:
        return cudaErrorNotSupported;
    }
}

static cudaError_t cudaCreateTextureObject_impl(cudaTextureObject_t *pTexObject,
                                                const struct cudaResourceDesc *pResDesc,
                                                const struct cudaTextureDesc *pTexDesc,
                                                const struct cudaResourceViewDesc *pResViewDesc) {
    (void)pResViewDesc;
    if (!pTexObject || !pResDesc || !pTexDesc) return cudaErrorInvalidValue;
    cudaError_t e = check_resource(pResDesc, "cudaCreateTextureObject");
    if (e != cudaSuccess) return e;
    struct emu_texture *t = emu_xcalloc(1, sizeof *t);
    t->res = *pResDesc;
    t->tex = *pTexDesc;
    t->h = emu_handle_new(K_TEXTURE, t, emu_self()->device);
    *pTexObject = (cudaTextureObject_t)t->h->value;
    return cudaSuccess;
}
EMU_API(cudaCreateTextureObject,
        (cudaTextureObject_t * pTexObject, const struct cudaResourceDesc *pResDesc,
         const struct cudaTextureDesc *pTexDesc, const struct cudaResourceViewDesc *pResViewDesc),
        (pTexObject, pResDesc, pTexDesc, pResViewDesc))

/* The linear memory a texture object reads (NULL, with a hazard, for a destroyed or unknown
 * object, or one over an array), for the built-in kernel that fetches through it. */
const void *emu_texture_linear(const char *op, unsigned long long tex, size_t *bytes) {
    struct emu_texture *t = emu_handle_get(op, (uintptr_t)tex, K_TEXTURE);
    if (!t || t->res.resType != cudaResourceTypeLinear) return NULL;
    *bytes = t->res.res.linear.sizeInBytes;
    return t->res.res.linear.devPtr;
}

static cudaError_t cudaDestroyTextureObject_impl(cudaTextureObject_t texObject) {
    struct emu_texture *t =
        emu_handle_take("cudaDestroyTextureObject", (uintptr_t)texObject, K_TEXTURE);
    if (!t) return cudaErrorInvalidValue;
    t->h->alive = 0;
    return cudaSuccess;
}
EMU_API(cudaDestroyTextureObject, (cudaTextureObject_t texObject), (texObject))

static cudaError_t cudaGetTextureObjectResourceDesc_impl(struct cudaResourceDesc *pResDesc,
                                                         cudaTextureObject_t texObject) {
    struct emu_texture *t =
        emu_handle_get("cudaGetTextureObjectResourceDesc", (uintptr_t)texObject, K_TEXTURE);
    if (!t || !pResDesc) return cudaErrorInvalidValue;
    *pResDesc = t->res;
    return cudaSuccess;
}
EMU_API(cudaGetTextureObjectResourceDesc,
        (struct cudaResourceDesc * pResDesc, cudaTextureObject_t texObject),
        (pResDesc, texObject))

static cudaError_t cudaGetTextureObjectTextureDesc_impl(struct cudaTextureDesc *pTexDesc,
                                                        cudaTextureObject_t texObject) {
    struct emu_texture *t =
        emu_handle_get("cudaGetTextureObjectTextureDesc", (uintptr_t)texObject, K_TEXTURE);
    if (!t || !pTexDesc) return cudaErrorInvalidValue;
    *pTexDesc = t->tex;
    return cudaSuccess;
}
EMU_API(cudaGetTextureObjectTextureDesc,
        (struct cudaTextureDesc * pTexDesc, cudaTextureObject_t texObject), (pTexDesc, texObject))

static cudaError_t cudaCreateSurfaceObject_impl(cudaSurfaceObject_t *pSurfObject,
                                                const struct cudaResourceDesc *pResDesc) {
    if (!pSurfObject || !pResDesc) return cudaErrorInvalidValue;
    if (pResDesc->resType != cudaResourceTypeArray) return cudaErrorInvalidValue;
    cudaError_t e = check_resource(pResDesc, "cudaCreateSurfaceObject");
    if (e != cudaSuccess) return e;
    struct emu_texture *t = emu_xcalloc(1, sizeof *t);
    t->res = *pResDesc;
    t->h = emu_handle_new(K_SURFACE, t, emu_self()->device);
    *pSurfObject = (cudaSurfaceObject_t)t->h->value;
    return cudaSuccess;
}
EMU_API(cudaCreateSurfaceObject,
        (cudaSurfaceObject_t * pSurfObject, const struct cudaResourceDesc *pResDesc),
        (pSurfObject, pResDesc))

static cudaError_t cudaDestroySurfaceObject_impl(cudaSurfaceObject_t surfObject) {
    struct emu_texture *t =
        emu_handle_take("cudaDestroySurfaceObject", (uintptr_t)surfObject, K_SURFACE);
    if (!t) return cudaErrorInvalidValue;
    t->h->alive = 0;
    return cudaSuccess;
}
EMU_API(cudaDestroySurfaceObject, (cudaSurfaceObject_t surfObject), (surfObject))

static cudaError_t cudaGetSurfaceObjectResourceDesc_impl(struct cudaResourceDesc *pResDesc,
                                                         cudaSurfaceObject_t surfObject) {
    struct emu_texture *t =
        emu_handle_get("cudaGetSurfaceObjectResourceDesc", (uintptr_t)surfObject, K_SURFACE);
    if (!t || !pResDesc) return cudaErrorInvalidValue;
    *pResDesc = t->res;
    return cudaSuccess;
}
EMU_API(cudaGetSurfaceObjectResourceDesc,
        (struct cudaResourceDesc * pResDesc, cudaSurfaceObject_t surfObject),
        (pResDesc, surfObject))
