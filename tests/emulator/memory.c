/* Emulated memory: every allocation (device, pinned, managed, array, graph, kernel name) is
 * pages of its own (managed memory mapped twice, for the application and for the emulator),
 * recorded in a registry sorted by address. A free never unmaps: the application's mapping
 * becomes PROT_NONE (quarantine), so a dangling host reference faults, and every emulated
 * access is checked against the registry first (a hazard is logged and the access skipped).
 * Also here: live host views marked by tests, managed memory on devices without concurrent
 * managed access, memory pools, and the allocation, copy and memset calls. */
#define _GNU_SOURCE
#include "emu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define DEVICE_MEMORY (16ULL << 30) /* what each emulated device reports as total */

static struct emu_alloc **allocs; /* sorted by base */
static size_t nallocs, cap_allocs;
static unsigned long long alloc_serial;

static const char *mem_kind_name(enum emu_mem_kind k) {
    switch (k) {
    case M_DEVICE: return "device memory";
    case M_PINNED: return "pinned host memory";
    case M_MANAGED: return "managed memory";
    case M_ARRAY: return "array memory";
    case M_GRAPH: return "graph memory";
    case M_NAME: return "a kernel name string";
    case M_IPC: return "memory of another process (IPC)";
    }
    return "memory";
}

static int managed_active_total(void) {
    int n = 0;
    for (int d = 0; d < EMU_MAX_DEVICES; d++) n += emu_devices[d].managed_active;
    return n;
}

static size_t page_size(void) {
    static size_t page;
    if (!page) page = (size_t)sysconf(_SC_PAGESIZE);
    return page;
}

/* What counts against a device's memory: device, array and graph allocations while live. */
static size_t device_used[EMU_MAX_DEVICES];

static int counted(const struct emu_alloc *a) {
    return a->device >= 0 && a->device < EMU_MAX_DEVICES &&
           (a->kind == M_DEVICE || a->kind == M_ARRAY || a->kind == M_GRAPH);
}

static struct emu_alloc **managed; /* every managed allocation, for kernel windows */
static size_t nmanaged, cap_managed;

/* Managed memory is mapped twice (a memfd): the application's mapping becomes PROT_NONE while
 * a kernel runs on a device without concurrent managed access, the emulator's stays usable.
 * Everything else is one shared anonymous mapping (moved into a memfd when exported, so that
 * cudaIpcOpenMemHandle can map the same pages again), which the emulator uses only while it
 * is live. */
static int map_pages(size_t mapped, int twice, char **base, char **alias) {
    if (!twice) {
        *base = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        *alias = *base;
        return *base != MAP_FAILED;
    }
    int fd = memfd_create("cuda-emu", MFD_CLOEXEC);
    if (fd < 0) return 0;
    if (ftruncate(fd, (off_t)mapped) != 0) {
        close(fd);
        return 0;
    }
    *base = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    *alias = *base == MAP_FAILED ? MAP_FAILED
                                 : mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (*alias == MAP_FAILED && *base != MAP_FAILED) munmap(*base, mapped);
    return *base != MAP_FAILED && *alias != MAP_FAILED;
}

/* Graph memory of each device in use now and at most (cudaDeviceGetGraphMemAttribute). */
static size_t graph_used[EMU_MAX_DEVICES], graph_high[EMU_MAX_DEVICES];

static void graph_count(const struct emu_alloc *a, int delta) {
    if (a->kind != M_GRAPH || a->device < 0 || a->device >= EMU_MAX_DEVICES) return;
    if (delta > 0) {
        graph_used[a->device] += a->mapped;
        if (graph_used[a->device] > graph_high[a->device]) graph_high[a->device] = graph_used[a->device];
    } else {
        graph_used[a->device] -= a->mapped;
    }
}

static void registry_insert(struct emu_alloc *a);

/* The registry is sorted by descending base: mmap hands out addresses top-down, so a new
 * allocation is usually appended. */
struct emu_alloc *emu_alloc_new(size_t size, enum emu_mem_kind kind, int device) {
    size_t page = page_size();
    size_t want = size ? size : 1;
    if (want > (1ULL << 40)) return NULL;
    size_t mapped = (want + page - 1) / page * page;
    char *base, *alias;
    if (!map_pages(mapped, kind == M_MANAGED, &base, &alias)) return NULL;
    struct emu_alloc *a = emu_xcalloc(1, sizeof *a);
    a->base = base;
    a->alias = alias;
    a->size = size;
    a->mapped = mapped;
    a->kind = kind;
    a->state = S_LIVE;
    a->device = device;
    a->serial = ++alloc_serial;
    if (kind == M_GRAPH) {
        a->state = S_UNMAPPED;
        mprotect(base, mapped, PROT_NONE);
    } else if (counted(a)) {
        device_used[device] += mapped;
    }
    if (kind == M_MANAGED) {
        if (managed_active_total() > 0) mprotect(base, mapped, PROT_NONE);
        if (nmanaged == cap_managed) {
            cap_managed = cap_managed ? 2 * cap_managed : 16;
            managed = emu_xrealloc(managed, cap_managed * sizeof *managed);
        }
        managed[nmanaged++] = a;
    }
    registry_insert(a);
    return a;
}

static void registry_insert(struct emu_alloc *a) {
    if (nallocs == cap_allocs) {
        cap_allocs = cap_allocs ? 2 * cap_allocs : 64;
        allocs = emu_xrealloc(allocs, cap_allocs * sizeof *allocs);
    }
    size_t i = nallocs;
    while (i > 0 && allocs[i - 1]->base < a->base) {
        allocs[i] = allocs[i - 1];
        i--;
    }
    allocs[i] = a;
    nallocs++;
}

struct emu_alloc *emu_alloc_find(const void *p) {
    const char *c = p;
    size_t lo = 0, hi = nallocs; /* the first index whose base is <= c */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (allocs[mid]->base > c)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == nallocs) return NULL;
    struct emu_alloc *a = allocs[lo];
    return c < a->base + a->mapped ? a : NULL;
}

void emu_alloc_free(struct emu_alloc *a, const char *by) {
    if (a->state == S_LIVE && counted(a)) device_used[a->device] -= a->mapped;
    if (a->state == S_LIVE) graph_count(a, -1);
    a->state = S_FREED;
    if (a->fd_plus1) {
        close(a->fd_plus1 - 1);
        a->fd_plus1 = 0;
    }
    free(a->freed_by);
    a->freed_by = emu_xstrdup(by); /* `by` may be a label on a worker's stack */
    mprotect(a->base, a->mapped, PROT_NONE);
}

void emu_alloc_revive(struct emu_alloc *a) {
    if (a->state != S_LIVE && counted(a)) device_used[a->device] += a->mapped;
    if (a->state != S_LIVE) graph_count(a, 1);
    a->state = S_LIVE;
    free(a->freed_by);
    a->freed_by = NULL;
    if (a->kind != M_MANAGED || managed_active_total() == 0)
        mprotect(a->base, a->mapped, PROT_READ | PROT_WRITE);
}

size_t emu_device_used(int device) {
    return device >= 0 && device < EMU_MAX_DEVICES ? device_used[device] : 0;
}

/* ---- host views marked by tests ---- */

struct view {
    const char *p;
    size_t n;
    int writable;
};
static struct view *views;
static size_t nviews, cap_views;

static void check_views(const char *op, const void *p, size_t n, int write) {
    const char *lo = p, *hi = (const char *)p + n;
    for (size_t i = 0; i < nviews; i++) {
        const struct view *v = &views[i];
        if (hi <= v->p || lo >= v->p + v->n) continue;
        if (write)
            emu_hazard("host-view",
                       "%s writes %p..%p behind a live host view of %p (%zu bytes)", op,
                       (void *)lo, (void *)hi, (void *)v->p, v->n);
        else if (v->writable)
            emu_hazard("host-view",
                       "%s reads %p..%p behind a live mutable host view of %p (%zu bytes)", op,
                       (void *)lo, (void *)hi, (void *)v->p, v->n);
    }
}

EMU_EXPORT void cudaEmuHostView(const void *p, size_t len, int writable) {
    emu_init();
    if (!p || !len) return;
    pthread_mutex_lock(&emu_lock);
    if (nviews == cap_views) {
        cap_views = cap_views ? 2 * cap_views : 8;
        views = emu_xrealloc(views, cap_views * sizeof *views);
    }
    views[nviews++] = (struct view){p, len, writable != 0};
    pthread_mutex_unlock(&emu_lock);
}

EMU_EXPORT void cudaEmuHostViewEnd(const void *p) {
    emu_init();
    pthread_mutex_lock(&emu_lock);
    for (size_t i = nviews; i-- > 0;) {
        if (views[i].p == p) {
            views[i] = views[--nviews];
            break;
        }
    }
    pthread_mutex_unlock(&emu_lock);
}

/* ---- checked access ---- */

char *emu_access(const char *op, const void *p, size_t n, int write, int device_side) {
    if (n == 0) return (char *)p;
    if (!p) {
        emu_hazard("invalid-address", "%s: a NULL pointer for %zu bytes", op, n);
        return NULL;
    }
    check_views(op, p, n, write);
    struct emu_alloc *a = emu_alloc_find(p);
    if (!a) {
        if (!device_side) return (char *)p; /* pageable host memory, accessed as it is */
        emu_hazard("invalid-address", "%s: %p (%zu bytes) is not emulated device memory", op, p,
                   n);
        return NULL;
    }
    if (a->state != S_LIVE) {
        emu_hazard("use-after-free",
                   "%s %s %p (%zu bytes) in %s at %p (%zu bytes, #%llu), %s by %s", op,
                   write ? "writes" : "reads", p, n, mem_kind_name(a->kind), (void *)a->base,
                   a->size, a->serial, a->state == S_FREED ? "freed" : "not allocated",
                   a->freed_by ? a->freed_by : "a graph that has not run its allocation");
        return NULL;
    }
    size_t off = (size_t)((const char *)p - a->base);
    if (off > a->size || n > a->size - off) {
        emu_hazard("out-of-bounds", "%s: %p (%zu bytes) overruns %s at %p (%zu bytes, #%llu)",
                   op, p, n, mem_kind_name(a->kind), (void *)a->base, a->size, a->serial);
        return NULL;
    }
    return a->alias + off;
}

static void copy_sides(int kind, const void *dst, const void *src, int *dd, int *sd) {
    switch (kind) {
    case cudaMemcpyHostToHost: *dd = *sd = 0; break;
    case cudaMemcpyHostToDevice: *dd = 1; *sd = 0; break;
    case cudaMemcpyDeviceToHost: *dd = 0; *sd = 1; break;
    case cudaMemcpyDeviceToDevice: *dd = *sd = 1; break;
    default: /* cudaMemcpyDefault: the registry says which side is emulated memory */
        *dd = emu_alloc_find(dst) != NULL;
        *sd = emu_alloc_find(src) != NULL;
    }
}

void emu_copy(const char *op, void *dst, const void *src, size_t n, int kind) {
    int dd, sd;
    copy_sides(kind, dst, src, &dd, &sd);
    char *d = emu_access(op, dst, n, 1, dd);
    char *s = emu_access(op, src, n, 0, sd);
    if (d && s && n) memmove(d, s, n);
}

void emu_set2d(const char *op, void *dst, size_t pitch, unsigned value, unsigned elem,
               size_t width, size_t height) {
    size_t row_bytes = width * elem;
    for (size_t r = 0; r < height; r++) {
        char *row = emu_access(op, (char *)dst + r * pitch, row_bytes, 1, 1);
        if (!row) return;
        for (size_t i = 0; i < width; i++) {
            if (elem == 1)
                row[i] = (char)value;
            else if (elem == 2) {
                unsigned short v = (unsigned short)value;
                memcpy(row + 2 * i, &v, 2);
            } else {
                memcpy(row + 4 * i, &value, 4);
            }
        }
    }
}

void emu_free_ptr(const char *op, void *p) {
    struct emu_alloc *a = emu_alloc_find(p);
    if (!a || a->base != (char *)p) {
        emu_hazard("invalid-address", "%s: %p is not the start of an emulated allocation", op,
                   p);
        return;
    }
    if (a->state != S_LIVE) {
        emu_hazard("double-free", "%s: %s at %p (#%llu) is %s (by %s)", op,
                   mem_kind_name(a->kind), p, a->serial,
                   a->state == S_FREED ? "already freed" : "not allocated",
                   a->freed_by ? a->freed_by : "a graph");
        return;
    }
    if (a->pool) emu_pool_used(a->pool, -(long long)a->size);
    emu_alloc_free(a, op);
}

void emu_managed_window(int device, int delta) {
    int before = managed_active_total();
    emu_devices[device].managed_active += delta;
    int after = managed_active_total();
    if ((before == 0) == (after == 0)) return;
    for (size_t i = 0; i < nmanaged; i++) {
        struct emu_alloc *a = managed[i];
        if (a->state == S_LIVE)
            mprotect(a->base, a->mapped, after ? PROT_NONE : PROT_READ | PROT_WRITE);
    }
}

void emu_memory_reset(int device) {
    for (size_t i = 0; i < nallocs; i++) {
        struct emu_alloc *a = allocs[i];
        if (a->device == device && a->state == S_LIVE && a->kind != M_NAME) {
            if (a->pool) emu_pool_used(a->pool, -(long long)a->size);
            emu_alloc_free(a, "cudaDeviceReset");
        }
    }
}

/* ---- memory pools ---- */

struct emu_pool {
    struct emu_handle *h;
    int device;
    int is_default;
    unsigned long long threshold, used, used_high, reserved, reserved_high;
    size_t max_size;
    int reuse[4];
    int access[EMU_MAX_DEVICES];
};

static struct emu_pool **pools; /* every pool ever made */
static size_t npools;

static struct emu_pool *pool_new(int device, size_t max_size, int is_default) {
    struct emu_pool *p = emu_xcalloc(1, sizeof *p);
    pools = emu_xrealloc(pools, (npools + 1) * sizeof *pools);
    pools[npools++] = p;
    p->device = device;
    p->is_default = is_default;
    p->max_size = max_size;
    p->reuse[1] = p->reuse[2] = p->reuse[3] = 1;
    p->access[device] = cudaMemAccessFlagsProtReadWrite;
    p->h = emu_handle_new(K_POOL, p, device);
    return p;
}

struct emu_pool *emu_default_pool(int d) {
    struct emu_device *dev = &emu_devices[d];
    if (!dev->default_pool) dev->default_pool = pool_new(d, 0, 1);
    if (!dev->current_pool) dev->current_pool = dev->default_pool;
    return dev->default_pool;
}

void emu_pool_used(struct emu_pool *p, long long delta) {
    if (delta > 0) {
        unsigned long long cached = p->reserved - p->used;
        if (cached < (unsigned long long)delta) p->reserved += (unsigned long long)delta - cached;
    }
    p->used += (unsigned long long)delta;
    if (p->used > p->used_high) p->used_high = p->used;
    if (p->reserved > p->reserved_high) p->reserved_high = p->reserved;
}

void emu_pools_settle(void) {
    for (size_t i = 0; i < npools; i++) {
        struct emu_pool *p = pools[i];
        if (!p->h->alive) continue;
        if (p->reserved > p->threshold)
            p->reserved = p->used > p->threshold ? p->used : p->threshold;
    }
}

static cudaError_t pool_alloc(void **out, size_t size, struct emu_pool *p, struct emu_stream *s,
                              const char *op) {
    if (!out) return cudaErrorInvalidValue;
    if (size == 0) {
        *out = NULL;
        return cudaErrorInvalidValue;
    }
    if (s->cap) {
        /* a graph memory node: the address is fixed now, the memory made at each launch */
        struct emu_alloc *a = emu_alloc_new(size, M_GRAPH, s->device);
        if (!a) return cudaErrorMemoryAllocation;
        struct emu_work w = {.type = W_MEM_ALLOC};
        w.u.alloc.a = a;
        cudaError_t e = emu_submit(s, &w, op);
        if (e == cudaSuccess) *out = a->base;
        return e;
    }
    if ((p->max_size && p->used + size > p->max_size) ||
        emu_device_used(p->device) + size > DEVICE_MEMORY)
        return cudaErrorMemoryAllocation;
    struct emu_alloc *a = emu_alloc_new(size, M_DEVICE, p->device);
    if (!a) return cudaErrorMemoryAllocation;
    a->pool = p;
    emu_pool_used(p, (long long)size);
    *out = a->base;
    return cudaSuccess;
}

static cudaError_t cudaMallocAsync_impl(void **devPtr, size_t size, cudaStream_t hStream) {
    cudaError_t e;
    struct emu_stream *s = emu_stream_resolve("cudaMallocAsync", hStream, &e);
    if (!s) return e;
    if (!s->cap) {
        /* Potentially unsafe outside a capture, as cudaFreeAsync. */
        e = emu_capture_check_unsafe("cudaMallocAsync");
        if (e != cudaSuccess) return e;
    }
    emu_default_pool(s->device);
    return pool_alloc(devPtr, size, emu_devices[s->device].current_pool, s, "cudaMallocAsync");
}
EMU_API(cudaMallocAsync, (void **devPtr, size_t size, cudaStream_t hStream),
        (devPtr, size, hStream))

static cudaError_t cudaMallocFromPoolAsync_impl(void **ptr, size_t size, cudaMemPool_t memPool,
                                                cudaStream_t stream) {
    struct emu_pool *p =
        emu_handle_get("cudaMallocFromPoolAsync", (uintptr_t)memPool, K_POOL);
    if (!p) return cudaErrorInvalidValue;
    cudaError_t e;
    struct emu_stream *s = emu_stream_resolve("cudaMallocFromPoolAsync", stream, &e);
    if (!s) return e;
    return pool_alloc(ptr, size, p, s, "cudaMallocFromPoolAsync");
}
EMU_API(cudaMallocFromPoolAsync,
        (void **ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream),
        (ptr, size, memPool, stream))

static cudaError_t cudaFreeAsync_impl(void *devPtr, cudaStream_t hStream) {
    cudaError_t e;
    struct emu_stream *s = emu_stream_resolve("cudaFreeAsync", hStream, &e);
    if (!s) return e;
    if (!devPtr) return cudaSuccess;
    struct emu_alloc *a = emu_alloc_find(devPtr);
    if (!a || a->base != (char *)devPtr || (a->kind != M_DEVICE && a->kind != M_GRAPH)) {
        emu_hazard("invalid-address", "cudaFreeAsync: %p is not a device allocation", devPtr);
        return cudaErrorInvalidValue;
    }
    if (a->state == S_FREED) {
        emu_hazard("double-free", "cudaFreeAsync: device memory at %p (#%llu) was freed by %s",
                   devPtr, a->serial, a->freed_by ? a->freed_by : "?");
        return cudaErrorInvalidValue;
    }
    if (s->cap && a->kind != M_GRAPH) {
        /* As CUDA does (seen on an H100 with the 13.0 runtime): a free of memory not
         * allocated by a graph cannot be captured; the capture goes on. Handing CUDA such a
         * free is logged: a caller relying on the refusal frees nothing it can trust. */
        emu_hazard("capture-free-foreign",
                   "cudaFreeAsync of memory #%llu, not a graph allocation, in a capture",
                   a->serial);
        return cudaErrorInvalidValue;
    }
    if (!s->cap) {
        /* As CUDA does (scripts/probe/capture_mode_probe.cu, H100, 13.0): a stream-ordered
         * free on a stream not being captured is a potentially unsafe call, refused under
         * another thread's global capture (which it invalidates). */
        e = emu_capture_check_unsafe("cudaFreeAsync");
        if (e != cudaSuccess) return e;
    }
    struct emu_work w = {.type = s->cap ? W_MEM_FREE : W_FREE};
    w.u.free.ptr = devPtr;
    return emu_submit(s, &w, "cudaFreeAsync");
}
EMU_API(cudaFreeAsync, (void *devPtr, cudaStream_t hStream), (devPtr, hStream))

static cudaError_t plain_alloc(void **out, size_t size, enum emu_mem_kind kind, const char *op) {
    if (!out) return cudaErrorInvalidValue;
    cudaError_t e = emu_capture_check_unsafe(op);
    if (e != cudaSuccess) return e;
    int d = emu_self()->device;
    if (size == 0) {
        *out = NULL;
        return kind == M_MANAGED ? cudaErrorInvalidValue : cudaSuccess;
    }
    if (kind != M_PINNED && emu_device_used(d) + size > DEVICE_MEMORY)
        return cudaErrorMemoryAllocation;
    struct emu_alloc *a = emu_alloc_new(size, kind, d);
    if (!a) return cudaErrorMemoryAllocation;
    *out = a->base;
    return cudaSuccess;
}

static cudaError_t cudaMalloc_impl(void **devPtr, size_t size) {
    cudaError_t e = plain_alloc(devPtr, size, M_DEVICE, "cudaMalloc");
    if (e == cudaSuccess && *devPtr) emu_alloc_find(*devPtr)->plain = 1;
    return e;
}
EMU_API(cudaMalloc, (void **devPtr, size_t size), (devPtr, size))

static cudaError_t cudaMallocHost_impl(void **ptr, size_t size) {
    return plain_alloc(ptr, size, M_PINNED, "cudaMallocHost");
}
EMU_API(cudaMallocHost, (void **ptr, size_t size), (ptr, size))

static cudaError_t cudaHostAlloc_impl(void **pHost, size_t size, unsigned int flags) {
    if (flags & ~(unsigned)(cudaHostAllocPortable | cudaHostAllocMapped |
                            cudaHostAllocWriteCombined))
        return cudaErrorInvalidValue;
    return plain_alloc(pHost, size, M_PINNED, "cudaHostAlloc");
}
EMU_API(cudaHostAlloc, (void **pHost, size_t size, unsigned int flags), (pHost, size, flags))

static cudaError_t cudaMallocManaged_impl(void **devPtr, size_t size, unsigned int flags) {
    if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost) return cudaErrorInvalidValue;
    return plain_alloc(devPtr, size, M_MANAGED, "cudaMallocManaged");
}
EMU_API(cudaMallocManaged, (void **devPtr, size_t size, unsigned int flags),
        (devPtr, size, flags))

/* cudaFree and cudaFreeHost free at once, after the work of the allocation's device (for
 * pinned memory: the current device), as CUDA's cudaFree synchronises. */
static cudaError_t free_now(void *p, int pinned, const char *op) {
    if (!p) return cudaSuccess;
    cudaError_t e = emu_capture_check_unsafe(op);
    if (e != cudaSuccess) return e;
    struct emu_alloc *a = emu_alloc_find(p);
    int right_kind = a && (pinned ? a->kind == M_PINNED
                                  : (a->kind == M_DEVICE || a->kind == M_MANAGED ||
                                     a->kind == M_GRAPH));
    if (!a || a->base != (char *)p || !right_kind) {
        emu_hazard("invalid-address", "%s: %p is not the start of %s", op, p,
                   pinned ? "pinned host memory" : "a device or managed allocation");
        return cudaErrorInvalidValue;
    }
    emu_wait_device(pinned ? emu_self()->device : a->device);
    if (a->state != S_LIVE) {
        emu_hazard("double-free", "%s: %s at %p (#%llu) is %s (by %s)", op,
                   mem_kind_name(a->kind), p, a->serial,
                   a->state == S_FREED ? "already freed" : "not allocated",
                   a->freed_by ? a->freed_by : "a graph");
        return cudaErrorInvalidValue;
    }
    if (a->pool) emu_pool_used(a->pool, -(long long)a->size);
    if (a->plain) {
        for (size_t i = 0; i < nallocs; i++) {
            struct emu_alloc *m = allocs[i];
            if (m->kind == M_IPC && m->state == S_LIVE && m->ipc_source == a->serial)
                emu_hazard("exported-free",
                           "%s: device memory at %p (#%llu) is freed while an importer still "
                           "maps it at %p",
                           op, p, a->serial, (void *)m->base);
        }
    }
    emu_alloc_free(a, op);
    return cudaSuccess;
}

/* ---- interprocess memory ----
 * A handle is "cuda-emu ipc" and the allocation's serial. The emulator lets a process open its
 * own handles (CUDA refuses): one test process plays both sides. Exporting moves the
 * allocation's pages into a memfd, mapped over the same addresses; an open maps the memfd
 * again as an allocation of its own (so it works under valgrind, which has no mremap of a
 * shared mapping); a second open of the same handle returns that mapping, counted; the last
 * close quarantines it (nothing waits). */

/* Puts the pages of `a` behind a memfd (once), keeping its addresses and contents. */
static int export_pages(struct emu_alloc *a) {
    if (a->fd_plus1) return 1;
    int fd = memfd_create("cuda-emu-ipc", MFD_CLOEXEC);
    if (fd < 0) return 0;
    if (ftruncate(fd, (off_t)a->mapped) != 0 || pwrite(fd, a->base, a->mapped, 0) != (ssize_t)a->mapped ||
        mmap(a->base, a->mapped, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
        close(fd);
        return 0;
    }
    a->alias = a->base;
    a->fd_plus1 = fd + 1;
    return 1;
}

static const char IPC_MAGIC[16] = "cuda-emu ipc";

static cudaError_t cudaIpcGetMemHandle_impl(cudaIpcMemHandle_t *handle, void *devPtr) {
    if (!handle) return cudaErrorInvalidValue;
    struct emu_alloc *a = emu_alloc_find(devPtr);
    if (!a || a->state != S_LIVE || !a->plain) return cudaErrorInvalidValue;
    if (!export_pages(a)) return cudaErrorMemoryAllocation;
    memset(handle, 0, sizeof *handle);
    memcpy(handle->reserved, IPC_MAGIC, sizeof IPC_MAGIC);
    memcpy(handle->reserved + 16, &a->serial, sizeof a->serial);
    return cudaSuccess;
}
EMU_API(cudaIpcGetMemHandle, (cudaIpcMemHandle_t * handle, void *devPtr), (handle, devPtr))

static cudaError_t cudaIpcOpenMemHandle_impl(void **devPtr, cudaIpcMemHandle_t handle,
                                             unsigned int flags) {
    if (!devPtr || flags != cudaIpcMemLazyEnablePeerAccess) return cudaErrorInvalidValue;
    if (memcmp(handle.reserved, IPC_MAGIC, sizeof IPC_MAGIC)) return cudaErrorInvalidResourceHandle;
    unsigned long long serial;
    memcpy(&serial, handle.reserved + 16, sizeof serial);
    struct emu_alloc *src = NULL;
    for (size_t i = 0; i < nallocs; i++) {
        struct emu_alloc *a = allocs[i];
        if (a->kind == M_IPC && a->state == S_LIVE && a->ipc_source == serial) {
            a->ipc_refs++;
            *devPtr = a->base;
            return cudaSuccess;
        }
        if (a->serial == serial && a->plain) src = a;
    }
    if (!src || src->state != S_LIVE) return cudaErrorInvalidResourceHandle;
    if (!src->fd_plus1) return cudaErrorInvalidResourceHandle;
    char *base = mmap(NULL, src->mapped, PROT_READ | PROT_WRITE, MAP_SHARED, src->fd_plus1 - 1, 0);
    if (base == MAP_FAILED) return cudaErrorMapBufferObjectFailed;
    struct emu_alloc *a = emu_xcalloc(1, sizeof *a);
    a->base = a->alias = base;
    a->size = src->size;
    a->mapped = src->mapped;
    a->kind = M_IPC;
    a->state = S_LIVE;
    a->device = emu_self()->device;
    a->serial = ++alloc_serial;
    a->ipc_source = serial;
    a->ipc_refs = 1;
    registry_insert(a);
    *devPtr = base;
    return cudaSuccess;
}
EMU_API(cudaIpcOpenMemHandle, (void **devPtr, cudaIpcMemHandle_t handle, unsigned int flags),
        (devPtr, handle, flags))

static cudaError_t cudaIpcCloseMemHandle_impl(void *devPtr) {
    struct emu_alloc *a = emu_alloc_find(devPtr);
    if (!a || a->kind != M_IPC || a->base != (char *)devPtr) {
        emu_hazard("invalid-address", "cudaIpcCloseMemHandle: %p is no opened IPC memory", devPtr);
        return cudaErrorInvalidValue;
    }
    if (a->state != S_LIVE) {
        emu_hazard("double-free", "cudaIpcCloseMemHandle: %p (#%llu) was closed by %s", devPtr,
                   a->serial, a->freed_by ? a->freed_by : "?");
        return cudaErrorInvalidValue;
    }
    if (--a->ipc_refs == 0) emu_alloc_free(a, "cudaIpcCloseMemHandle");
    return cudaSuccess;
}
EMU_API(cudaIpcCloseMemHandle, (void *devPtr), (devPtr))

/* ---- the graph memory pool ---- */

static cudaError_t cudaDeviceGetGraphMemAttribute_impl(int device,
                                                       enum cudaGraphMemAttributeType attr,
                                                       void *value) {
    if (!emu_valid_device(device)) return cudaErrorInvalidDevice;
    if (!value) return cudaErrorInvalidValue;
    unsigned long long v;
    switch (attr) {
    case cudaGraphMemAttrUsedMemCurrent:
    case cudaGraphMemAttrReservedMemCurrent: v = graph_used[device]; break;
    case cudaGraphMemAttrUsedMemHigh:
    case cudaGraphMemAttrReservedMemHigh: v = graph_high[device]; break;
    default: return cudaErrorInvalidValue;
    }
    memcpy(value, &v, sizeof v);
    return cudaSuccess;
}
EMU_API(cudaDeviceGetGraphMemAttribute,
        (int device, enum cudaGraphMemAttributeType attr, void *value), (device, attr, value))

static cudaError_t cudaDeviceSetGraphMemAttribute_impl(int device,
                                                       enum cudaGraphMemAttributeType attr,
                                                       void *value) {
    if (!emu_valid_device(device)) return cudaErrorInvalidDevice;
    unsigned long long v;
    if (!value) return cudaErrorInvalidValue;
    memcpy(&v, value, sizeof v);
    if (v != 0 || (attr != cudaGraphMemAttrUsedMemHigh && attr != cudaGraphMemAttrReservedMemHigh))
        return cudaErrorInvalidValue;
    graph_high[device] = graph_used[device];
    return cudaSuccess;
}
EMU_API(cudaDeviceSetGraphMemAttribute,
        (int device, enum cudaGraphMemAttributeType attr, void *value), (device, attr, value))

static cudaError_t cudaDeviceGraphMemTrim_impl(int device) {
    return emu_valid_device(device) ? cudaSuccess : cudaErrorInvalidDevice;
}
EMU_API(cudaDeviceGraphMemTrim, (int device), (device))

static cudaError_t cudaFree_impl(void *devPtr) { return free_now(devPtr, 0, "cudaFree"); }
EMU_API(cudaFree, (void *devPtr), (devPtr))

static cudaError_t cudaFreeHost_impl(void *ptr) { return free_now(ptr, 1, "cudaFreeHost"); }
EMU_API(cudaFreeHost, (void *ptr), (ptr))

/* ---- host registration and pointer attributes ---- */

/* Host ranges page-locked with cudaHostRegister (the memory stays the application's). */
static struct { const char *base; size_t size; } *registered;
static size_t nregistered;

static size_t registered_index(const void *p) {
    for (size_t i = 0; i < nregistered; i++)
        if ((const char *)p >= registered[i].base &&
            (const char *)p < registered[i].base + registered[i].size)
            return i;
    return (size_t)-1;
}

static cudaError_t cudaHostRegister_impl(void *ptr, size_t size, unsigned int flags) {
    if (!ptr || !size || flags > 0xf) return cudaErrorInvalidValue;
    if (emu_alloc_find(ptr) || registered_index(ptr) != (size_t)-1 ||
        registered_index((char *)ptr + size - 1) != (size_t)-1)
        return cudaErrorHostMemoryAlreadyRegistered;
    registered = emu_xrealloc(registered, (nregistered + 1) * sizeof *registered);
    registered[nregistered].base = ptr;
    registered[nregistered].size = size;
    nregistered++;
    return cudaSuccess;
}
EMU_API(cudaHostRegister, (void *ptr, size_t size, unsigned int flags), (ptr, size, flags))

static cudaError_t cudaHostUnregister_impl(void *ptr) {
    size_t i = registered_index(ptr);
    if (i == (size_t)-1 || registered[i].base != ptr) return cudaErrorHostMemoryNotRegistered;
    registered[i] = registered[--nregistered];
    return cudaSuccess;
}
EMU_API(cudaHostUnregister, (void *ptr), (ptr))

static cudaError_t cudaPointerGetAttributes_impl(struct cudaPointerAttributes *attributes,
                                                 const void *ptr) {
    if (!attributes) return cudaErrorInvalidValue;
    memset(attributes, 0, sizeof *attributes);
    attributes->device = -2;
    struct emu_alloc *a = emu_alloc_find(ptr);
    if (a && a->state == S_LIVE) {
        attributes->device = a->device < 0 ? emu_self()->device : a->device;
        switch (a->kind) {
        case M_PINNED:
            attributes->type = cudaMemoryTypeHost;
            attributes->hostPointer = (void *)ptr;
            attributes->devicePointer = (void *)ptr;
            break;
        case M_MANAGED:
            attributes->type = cudaMemoryTypeManaged;
            attributes->hostPointer = (void *)ptr;
            attributes->devicePointer = (void *)ptr;
            break;
        default:
            attributes->type = cudaMemoryTypeDevice;
            attributes->devicePointer = (void *)ptr;
        }
    } else if (registered_index(ptr) != (size_t)-1) {
        attributes->type = cudaMemoryTypeHost;
        attributes->device = emu_self()->device;
        attributes->hostPointer = (void *)ptr;
        attributes->devicePointer = (void *)ptr;
    } else {
        attributes->type = cudaMemoryTypeUnregistered;
    }
    return cudaSuccess;
}
EMU_API(cudaPointerGetAttributes, (struct cudaPointerAttributes * attributes, const void *ptr),
        (attributes, ptr))

/* Pools shared between processes are not emulated (reported as unsupported, never faked). */
static cudaError_t cudaMemPoolExportToShareableHandle_impl(void *shareableHandle,
                                                           cudaMemPool_t memPool,
                                                           enum cudaMemAllocationHandleType handleType,
                                                           unsigned int flags) {
    (void)memPool;
    (void)handleType;
    if (!shareableHandle || flags) return cudaErrorInvalidValue;
    return cudaErrorNotSupported;
}
EMU_API(cudaMemPoolExportToShareableHandle,
        (void *shareableHandle, cudaMemPool_t memPool, enum cudaMemAllocationHandleType handleType,
         unsigned int flags),
        (shareableHandle, memPool, handleType, flags))

static cudaError_t cudaMemPoolImportFromShareableHandle_impl(cudaMemPool_t *memPool,
                                                             void *shareableHandle,
                                                             enum cudaMemAllocationHandleType handleType,
                                                             unsigned int flags) {
    (void)shareableHandle;
    (void)handleType;
    if (!memPool || flags) return cudaErrorInvalidValue;
    return cudaErrorNotSupported;
}
EMU_API(cudaMemPoolImportFromShareableHandle,
        (cudaMemPool_t * memPool, void *shareableHandle,
         enum cudaMemAllocationHandleType handleType, unsigned int flags),
        (memPool, shareableHandle, handleType, flags))

static cudaError_t cudaMemPoolExportPointer_impl(struct cudaMemPoolPtrExportData *exportData,
                                                 void *ptr) {
    if (!exportData || !ptr) return cudaErrorInvalidValue;
    return cudaErrorNotSupported;
}
EMU_API(cudaMemPoolExportPointer, (struct cudaMemPoolPtrExportData * exportData, void *ptr),
        (exportData, ptr))

static cudaError_t cudaMemPoolImportPointer_impl(void **ptr, cudaMemPool_t memPool,
                                                 struct cudaMemPoolPtrExportData *exportData) {
    (void)memPool;
    if (!ptr || !exportData) return cudaErrorInvalidValue;
    return cudaErrorNotSupported;
}
EMU_API(cudaMemPoolImportPointer,
        (void **ptr, cudaMemPool_t memPool, struct cudaMemPoolPtrExportData *exportData),
        (ptr, memPool, exportData))

static cudaError_t cudaMemGetInfo_impl(size_t *free_bytes, size_t *total) {
    if (!free_bytes || !total) return cudaErrorInvalidValue;
    *total = DEVICE_MEMORY;
    *free_bytes = DEVICE_MEMORY - emu_device_used(emu_self()->device);
    return cudaSuccess;
}
EMU_API(cudaMemGetInfo, (size_t * free, size_t *total), (free, total))

/* ---- copies and memsets ---- */

static int valid_kind(int kind) { return kind >= cudaMemcpyHostToHost && kind <= cudaMemcpyDefault; }

/* Work of a device other than the current one: kernel launches fail on such a stream in
 * CUDA (cudaErrorInvalidResourceHandle); the emulator treats copies and memsets alike. */
static cudaError_t same_device(struct emu_stream *s) {
    return s->device == emu_self()->device ? cudaSuccess : cudaErrorInvalidResourceHandle;
}

/* Pool memory of another device that the stream's device was not given access to
 * (cudaMemPoolSetAccess): CUDA refuses such a copy (cudaErrorInvalidValue, seen on two H100s
 * with peer access enabled but not pool access). */
static int pool_access_denied(const void *p, int device) {
    struct emu_alloc *a = emu_alloc_find(p);
    return a && a->pool && a->pool->device != device && !a->pool->access[device];
}

static cudaError_t cudaMemcpyAsync_impl(void *dst, const void *src, size_t count,
                                        enum cudaMemcpyKind kind, cudaStream_t stream) {
    if (!valid_kind(kind)) return cudaErrorInvalidMemcpyDirection;
    cudaError_t e;
    struct emu_stream *s = emu_stream_resolve("cudaMemcpyAsync", stream, &e);
    if (!s) return e;
    if ((e = same_device(s)) != cudaSuccess) return e;
    if (count == 0) return cudaSuccess;
    if (pool_access_denied(dst, s->device) || pool_access_denied(src, s->device))
        return cudaErrorInvalidValue;
    struct emu_work w = {.type = W_COPY};
    w.u.copy.dst = dst;
    w.u.copy.src = src;
    w.u.copy.n = count;
    w.u.copy.kind = kind;
    return emu_submit(s, &w, "cudaMemcpyAsync");
}
EMU_API(cudaMemcpyAsync,
        (void *dst, const void *src, size_t count, enum cudaMemcpyKind kind, cudaStream_t stream),
        (dst, src, count, kind, stream))

static cudaError_t cudaMemsetAsync_impl(void *devPtr, int value, size_t count,
                                        cudaStream_t stream) {
    cudaError_t e;
    struct emu_stream *s = emu_stream_resolve("cudaMemsetAsync", stream, &e);
    if (!s) return e;
    if ((e = same_device(s)) != cudaSuccess) return e;
    if (count == 0) return cudaSuccess;
    struct emu_work w = {.type = W_SET};
    w.u.set.dst = devPtr;
    w.u.set.pitch = count;
    w.u.set.value = (unsigned char)value;
    w.u.set.elem = 1;
    w.u.set.width = count;
    w.u.set.height = 1;
    return emu_submit(s, &w, "cudaMemsetAsync");
}
EMU_API(cudaMemsetAsync, (void *devPtr, int value, size_t count, cudaStream_t stream),
        (devPtr, value, count, stream))

/* The blocking forms run on the current device's legacy stream and wait for their work. */
static cudaError_t run_on_legacy(struct emu_work *w, const char *op) {
    cudaError_t e = emu_capture_check_unsafe(op);
    if (e != cudaSuccess) {
        emu_work_drop(w);
        return e;
    }
    struct emu_stream *s = emu_stream_resolve(op, NULL, &e);
    if (!s) return e;
    e = emu_submit(s, w, op);
    if (e != cudaSuccess) return e;
    unsigned long long ticket = s->enqueued;
    while (s->completed < ticket) emu_wait();
    return cudaSuccess;
}

static cudaError_t cudaMemcpy_impl(void *dst, const void *src, size_t count,
                                   enum cudaMemcpyKind kind) {
    if (!valid_kind(kind)) return cudaErrorInvalidMemcpyDirection;
    if (count == 0) return cudaSuccess;
    struct emu_work w = {.type = W_COPY};
    w.u.copy.dst = dst;
    w.u.copy.src = src;
    w.u.copy.n = count;
    w.u.copy.kind = kind;
    return run_on_legacy(&w, "cudaMemcpy");
}
EMU_API(cudaMemcpy, (void *dst, const void *src, size_t count, enum cudaMemcpyKind kind),
        (dst, src, count, kind))

static cudaError_t cudaMemset_impl(void *devPtr, int value, size_t count) {
    if (count == 0) return cudaSuccess;
    struct emu_work w = {.type = W_SET};
    w.u.set.dst = devPtr;
    w.u.set.pitch = count;
    w.u.set.value = (unsigned char)value;
    w.u.set.elem = 1;
    w.u.set.width = count;
    w.u.set.height = 1;
    return run_on_legacy(&w, "cudaMemset");
}
EMU_API(cudaMemset, (void *devPtr, int value, size_t count), (devPtr, value, count))

/* ---- memory pool calls ---- */

static cudaError_t cudaMemPoolCreate_impl(cudaMemPool_t *memPool,
                                          const struct cudaMemPoolProps *props) {
    if (!memPool || !props) return cudaErrorInvalidValue;
    if (props->allocType != cudaMemAllocationTypePinned ||
        props->location.type != cudaMemLocationTypeDevice ||
        !emu_valid_device(props->location.id))
        return cudaErrorInvalidValue;
    struct emu_pool *p = pool_new(props->location.id, props->maxSize, 0);
    *memPool = (cudaMemPool_t)p->h->value;
    return cudaSuccess;
}
EMU_API(cudaMemPoolCreate, (cudaMemPool_t * memPool, const struct cudaMemPoolProps *poolProps),
        (memPool, poolProps))

static cudaError_t cudaMemPoolDestroy_impl(cudaMemPool_t memPool) {
    struct emu_pool *p = emu_handle_take("cudaMemPoolDestroy", (uintptr_t)memPool, K_POOL);
    if (!p) return cudaErrorInvalidValue;
    if (p->is_default) return cudaErrorInvalidValue;
    p->h->alive = 0;
    for (int d = 0; d < EMU_MAX_DEVICES; d++)
        if (emu_devices[d].current_pool == p) emu_devices[d].current_pool = emu_devices[d].default_pool;
    return cudaSuccess;
}
EMU_API(cudaMemPoolDestroy, (cudaMemPool_t memPool), (memPool))

static cudaError_t pool_attr(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value,
                             int set, const char *op) {
    struct emu_pool *p = emu_handle_get(op, (uintptr_t)memPool, K_POOL);
    if (!p) return cudaErrorInvalidValue;
    if (!value) return cudaErrorInvalidValue;
    unsigned long long *v64 = value;
    int *v32 = value;
    switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies:
    case cudaMemPoolReuseAllowOpportunistic:
    case cudaMemPoolReuseAllowInternalDependencies:
        if (set)
            p->reuse[attr] = *v32 != 0;
        else
            *v32 = p->reuse[attr];
        return cudaSuccess;
    case cudaMemPoolAttrReleaseThreshold:
        if (set)
            p->threshold = *v64;
        else
            *v64 = p->threshold;
        return cudaSuccess;
    case cudaMemPoolAttrReservedMemCurrent:
        if (set) return cudaErrorInvalidValue;
        *v64 = p->reserved;
        return cudaSuccess;
    case cudaMemPoolAttrUsedMemCurrent:
        if (set) return cudaErrorInvalidValue;
        *v64 = p->used;
        return cudaSuccess;
    case cudaMemPoolAttrReservedMemHigh:
        if (set) {
            if (*v64 != 0) return cudaErrorInvalidValue;
            p->reserved_high = p->reserved;
        } else {
            *v64 = p->reserved_high;
        }
        return cudaSuccess;
    case cudaMemPoolAttrUsedMemHigh:
        if (set) {
            if (*v64 != 0) return cudaErrorInvalidValue;
            p->used_high = p->used;
        } else {
            *v64 = p->used_high;
        }
        return cudaSuccess;
    default:
        return cudaErrorInvalidValue;
    }
}

static cudaError_t cudaMemPoolGetAttribute_impl(cudaMemPool_t memPool, enum cudaMemPoolAttr attr,
                                                void *value) {
    return pool_attr(memPool, attr, value, 0, "cudaMemPoolGetAttribute");
}
EMU_API(cudaMemPoolGetAttribute, (cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value),
        (memPool, attr, value))

static cudaError_t cudaMemPoolSetAttribute_impl(cudaMemPool_t memPool, enum cudaMemPoolAttr attr,
                                                void *value) {
    return pool_attr(memPool, attr, value, 1, "cudaMemPoolSetAttribute");
}
EMU_API(cudaMemPoolSetAttribute, (cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value),
        (memPool, attr, value))

static cudaError_t cudaMemPoolTrimTo_impl(cudaMemPool_t memPool, size_t keep) {
    struct emu_pool *p = emu_handle_get("cudaMemPoolTrimTo", (uintptr_t)memPool, K_POOL);
    if (!p) return cudaErrorInvalidValue;
    unsigned long long floor = p->used > keep ? p->used : keep;
    if (p->reserved > floor) p->reserved = floor;
    return cudaSuccess;
}
EMU_API(cudaMemPoolTrimTo, (cudaMemPool_t memPool, size_t minBytesToKeep),
        (memPool, minBytesToKeep))

static cudaError_t cudaMemPoolSetAccess_impl(cudaMemPool_t memPool,
                                             const struct cudaMemAccessDesc *descList,
                                             size_t count) {
    struct emu_pool *p = emu_handle_get("cudaMemPoolSetAccess", (uintptr_t)memPool, K_POOL);
    if (!p) return cudaErrorInvalidValue;
    if (count && !descList) return cudaErrorInvalidValue;
    for (size_t i = 0; i < count; i++) {
        const struct cudaMemAccessDesc *d = &descList[i];
        if (d->location.type != cudaMemLocationTypeDevice || !emu_valid_device(d->location.id))
            return cudaErrorInvalidDevice;
        if (d->location.id == p->device && d->flags != cudaMemAccessFlagsProtReadWrite)
            return cudaErrorInvalidDevice;
    }
    for (size_t i = 0; i < count; i++) p->access[descList[i].location.id] = descList[i].flags;
    return cudaSuccess;
}
EMU_API(cudaMemPoolSetAccess,
        (cudaMemPool_t memPool, const struct cudaMemAccessDesc *descList, size_t count),
        (memPool, descList, count))

static cudaError_t cudaMemPoolGetAccess_impl(enum cudaMemAccessFlags *flags,
                                             cudaMemPool_t memPool,
                                             struct cudaMemLocation *location) {
    struct emu_pool *p = emu_handle_get("cudaMemPoolGetAccess", (uintptr_t)memPool, K_POOL);
    if (!p) return cudaErrorInvalidValue;
    if (!flags || !location || location->type != cudaMemLocationTypeDevice ||
        !emu_valid_device(location->id))
        return cudaErrorInvalidValue;
    *flags = (enum cudaMemAccessFlags)p->access[location->id];
    return cudaSuccess;
}
EMU_API(cudaMemPoolGetAccess,
        (enum cudaMemAccessFlags * flags, cudaMemPool_t memPool, struct cudaMemLocation *location),
        (flags, memPool, location))

static cudaError_t cudaDeviceGetDefaultMemPool_impl(cudaMemPool_t *memPool, int device) {
    if (!memPool) return cudaErrorInvalidValue;
    if (!emu_valid_device(device)) return cudaErrorInvalidDevice;
    *memPool = (cudaMemPool_t)emu_default_pool(device)->h->value;
    return cudaSuccess;
}
EMU_API(cudaDeviceGetDefaultMemPool, (cudaMemPool_t * memPool, int device), (memPool, device))

static cudaError_t cudaDeviceGetMemPool_impl(cudaMemPool_t *memPool, int device) {
    if (!memPool) return cudaErrorInvalidValue;
    if (!emu_valid_device(device)) return cudaErrorInvalidDevice;
    emu_default_pool(device);
    *memPool = (cudaMemPool_t)emu_devices[device].current_pool->h->value;
    return cudaSuccess;
}
EMU_API(cudaDeviceGetMemPool, (cudaMemPool_t * memPool, int device), (memPool, device))

static cudaError_t cudaDeviceSetMemPool_impl(int device, cudaMemPool_t memPool) {
    if (!emu_valid_device(device)) return cudaErrorInvalidDevice;
    struct emu_pool *p = emu_handle_get("cudaDeviceSetMemPool", (uintptr_t)memPool, K_POOL);
    if (!p) return cudaErrorInvalidValue;
    if (p->device != device) return cudaErrorInvalidDevice;
    emu_default_pool(device);
    emu_devices[device].current_pool = p;
    return cudaSuccess;
}
EMU_API(cudaDeviceSetMemPool, (int device, cudaMemPool_t memPool), (device, memPool))

/* Called by cudaDeviceReset: the device's pools other than the default are destroyed. */
void emu_pools_reset(int device) {
    for (size_t i = 0; i < npools; i++) {
        struct emu_pool *p = pools[i];
        struct emu_handle *h = p->h;
        if (!h->alive || h->device != device) continue;
        if (p->is_default) {
            p->used = p->reserved = p->used_high = p->reserved_high = 0;
            continue;
        }
        h->alive = 0;
        h->reset = 1;
    }
    emu_devices[device].current_pool = emu_devices[device].default_pool;
}
