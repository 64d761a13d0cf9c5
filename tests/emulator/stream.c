/* Streams and events. Each stream has a worker thread that runs its queue in order, sleeping
 * the configured delay before each operation that does work, so that asynchronous work ends
 * well after the call that queued it returned. The legacy stream (handles NULL and 1) of each
 * device waits for, and is waited for by, the device's blocking streams; the per-thread stream
 * (handle 2) is the calling thread's own. Events record a position in a stream's queue;
 * cudaStreamWaitEvent queues a marker that waits for it. Host functions and stream callbacks
 * run on the worker, marked as a callback thread. Queued work on a capturing stream becomes
 * graph nodes (graph.c). */
#define _GNU_SOURCE
#include "emu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct emu_stream **emu_streams;
size_t emu_nstreams;
static size_t cap_streams;
static unsigned long long next_stream_id;

double emu_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

struct emu_stream *emu_stream_make(enum emu_stream_kind kind, int device, unsigned flags,
                                   int priority) {
    struct emu_stream *s = emu_xcalloc(1, sizeof *s);
    s->kind = kind;
    s->device = device;
    s->flags = flags;
    s->priority = priority;
    s->id = ++next_stream_id;
    if (kind == ST_OWNED) s->h = emu_handle_new(K_STREAM, s, device);
    if (emu_nstreams == cap_streams) {
        cap_streams = cap_streams ? 2 * cap_streams : 16;
        emu_streams = emu_xrealloc(emu_streams, cap_streams * sizeof *emu_streams);
    }
    emu_streams[emu_nstreams++] = s;
    return s;
}

/* A destroyed stream with nothing queued leaves the list of streams (its structure stays, as
 * events and queued waits may still point at it). */
static void forget_if_done(struct emu_stream *s) {
    if (!s->destroyed || s->worker || !emu_stream_idle(s) || s->cap) return;
    for (size_t i = 0; i < emu_nstreams; i++) {
        if (emu_streams[i] == s) {
            emu_streams[i] = emu_streams[--emu_nstreams];
            return;
        }
    }
}

static struct emu_stream *legacy_of(int d) {
    if (!emu_devices[d].legacy) emu_devices[d].legacy = emu_stream_make(ST_LEGACY, d, 0, 0);
    return emu_devices[d].legacy;
}

struct emu_stream *emu_stream_resolve(const char *op, cudaStream_t handle, cudaError_t *err) {
    struct emu_thread *t = emu_self();
    int d = t->device;
    if (!emu_valid_device(d)) {
        *err = emu_cfg.devices ? cudaErrorInvalidDevice : cudaErrorNoDevice;
        return NULL;
    }
    uintptr_t v = (uintptr_t)handle;
    if (v == 0 || v == (uintptr_t)cudaStreamLegacy) return legacy_of(d);
    if (v == (uintptr_t)cudaStreamPerThread) {
        if (!t->per_thread[d]) t->per_thread[d] = emu_stream_make(ST_PER_THREAD, d, 0, 0);
        return t->per_thread[d];
    }
    struct emu_stream *s = emu_handle_get(op, v, K_STREAM);
    if (!s) *err = cudaErrorInvalidResourceHandle;
    return s;
}

static int blocking(const struct emu_stream *s) {
    return s->kind != ST_LEGACY && !(s->flags & cudaStreamNonBlocking);
}

int emu_stream_idle(struct emu_stream *s) { return s->completed == s->enqueued; }

int emu_event_complete(struct emu_event *ev) {
    return !ev->rec_stream || ev->rec_stream->completed >= ev->rec_ticket;
}

void emu_op_add_dep(struct emu_op *o, struct emu_stream *s, unsigned long long ticket) {
    if (s->completed >= ticket) return;
    o->deps = emu_xrealloc(o->deps, (o->ndeps + 1) * sizeof *o->deps);
    o->deps[o->ndeps++] = (struct emu_dep){s, ticket};
}

static int deps_done(const struct emu_op *o) {
    for (size_t i = 0; i < o->ndeps; i++)
        if (o->deps[i].s->completed < o->deps[i].ticket) return 0;
    return 1;
}

/* ---- work items ---- */

void emu_work_copy(struct emu_work *dst, const struct emu_work *src) {
    *dst = *src;
    if (src->type == W_KERNEL && src->u.kernel.args) {
        dst->u.kernel.args = emu_xmalloc(src->u.kernel.argbytes);
        memcpy(dst->u.kernel.args, src->u.kernel.args, src->u.kernel.argbytes);
    }
    if ((src->type == W_GRAPH || src->type == W_CHILD) && src->u.graph.g)
        dst->u.graph.g = emu_graph_clone(src->u.graph.g, 0);
}

void emu_work_drop(struct emu_work *w) {
    if (w->type == W_KERNEL) free(w->u.kernel.args);
    if ((w->type == W_GRAPH || w->type == W_CHILD) && w->u.graph.g)
        emu_graph_release(w->u.graph.g);
    w->type = W_EMPTY;
}

const char *emu_work_name(const struct emu_work *w) {
    switch (w->type) {
    case W_NOP: return "event wait";
    case W_COPY: return "memcpy";
    case W_SET: return "memset";
    case W_KERNEL: return "kernel";
    case W_HOST: return "host function";
    case W_CALLBACK: return "stream callback";
    case W_RECORD: return "event record";
    case W_FREE: return "cudaFreeAsync";
    case W_GRAPH: return "graph launch";
    case W_EMPTY: return "empty";
    case W_CHILD: return "child graph";
    case W_EVENT_RECORD: return "event record";
    case W_EVENT_WAIT: return "event wait";
    case W_MEM_ALLOC: return "memory allocation";
    case W_MEM_FREE: return "memory free";
    }
    return "?";
}

static int has_delay(enum emu_work_type t) { return t != W_NOP && t != W_RECORD; }

/* ---- queueing ---- */

static void *worker_main(void *arg);

static void start_worker(struct emu_stream *s) {
    if (s->worker) return;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t th;
    if (pthread_create(&th, &attr, worker_main, s) == 0) s->worker = 1;
    else fputs("cuda-emu: cannot start a stream worker thread\n", stderr);
    pthread_attr_destroy(&attr);
}

static struct emu_op *enqueue(struct emu_stream *s, struct emu_work *w) {
    struct emu_op *o = emu_xcalloc(1, sizeof *o);
    o->w = *w;
    o->ticket = ++s->enqueued;
    o->delay = has_delay(w->type);
    if (s->kind == ST_LEGACY) {
        for (size_t i = 0; i < emu_nstreams; i++) {
            struct emu_stream *t = emu_streams[i];
            if (t != s && t->device == s->device && blocking(t) && !emu_stream_idle(t))
                emu_op_add_dep(o, t, t->enqueued);
        }
    } else if (blocking(s)) {
        struct emu_stream *l = legacy_of(s->device);
        if (!emu_stream_idle(l)) emu_op_add_dep(o, l, l->enqueued);
    }
    int kernels = w->type == W_KERNEL ||
                  (w->type == W_GRAPH && emu_graph_has_kernels(w->u.graph.g));
    if (kernels && !emu_cfg.concurrent_managed[s->device]) {
        o->managed_window = 1;
        emu_managed_window(s->device, +1);
    }
    if (w->type == W_RECORD) {
        struct emu_event *ev = w->u.record.ev;
        ev->rec_stream = s;
        ev->rec_ticket = o->ticket;
        ev->serial++;
        ev->time_valid = 0;
        ev->cap = NULL;
    }
    if (w->type == W_GRAPH) emu_graph_prepare_launch(s, w->u.graph.g, o);
    if (s->tail)
        s->tail->next = o;
    else
        s->head = o;
    s->tail = o;
    start_worker(s);
    emu_wake();
    return o;
}

cudaError_t emu_submit(struct emu_stream *s, struct emu_work *w, const char *op) {
    (void)op;
    if (s->cap) {
        if (s->cap->invalidated) {
            emu_work_drop(w);
            return cudaErrorStreamCaptureInvalidated;
        }
        if (w->type == W_CALLBACK) {
            emu_capture_invalidate(s->cap, cudaErrorStreamCaptureUnsupported);
            emu_work_drop(w);
            return cudaErrorStreamCaptureUnsupported;
        }
        if (w->type == W_FREE) w->type = W_MEM_FREE;
        if (w->type == W_GRAPH) w->type = W_CHILD;
        emu_capture_add(s, w);
        return cudaSuccess;
    }
    if (s->kind == ST_LEGACY) {
        int implicit = 0;
        for (size_t i = 0; i < emu_nstreams; i++) {
            struct emu_stream *t = emu_streams[i];
            if (t->cap && t->device == s->device && blocking(t)) {
                emu_capture_invalidate(t->cap, cudaErrorStreamCaptureImplicit);
                implicit = 1;
            }
        }
        if (implicit) {
            emu_work_drop(w);
            return cudaErrorStreamCaptureImplicit;
        }
    }
    enqueue(s, w);
    return cudaSuccess;
}

/* ---- running work ---- */

void emu_run_callback_fn(cudaHostFn_t fn, void *user) {
    struct emu_thread *t = emu_self();
    t->callback = 1;
    pthread_mutex_unlock(&emu_lock);
    fn(user);
    pthread_mutex_lock(&emu_lock);
    t->callback = 0;
}

static void run_op(struct emu_stream *s, struct emu_op *o) {
    struct emu_work *w = &o->w;
    char label[96];
    switch (w->type) {
    case W_COPY:
        snprintf(label, sizeof label, "cudaMemcpyAsync (kind %d) on stream %llu", w->u.copy.kind,
                 s->id);
        emu_copy(label, w->u.copy.dst, w->u.copy.src, w->u.copy.n, w->u.copy.kind);
        break;
    case W_SET:
        snprintf(label, sizeof label, "cudaMemsetAsync on stream %llu", s->id);
        emu_set2d(label, w->u.set.dst, w->u.set.pitch, w->u.set.value, w->u.set.elem,
                  w->u.set.width, w->u.set.height);
        break;
    case W_KERNEL:
        emu_kernel_run(s, w);
        break;
    case W_HOST:
        emu_run_callback_fn(w->u.host.fn, w->u.host.user);
        break;
    case W_CALLBACK: {
        struct emu_thread *t = emu_self();
        t->callback = 1;
        pthread_mutex_unlock(&emu_lock);
        w->u.callback.fn(w->u.callback.stream, cudaSuccess, w->u.callback.user);
        pthread_mutex_lock(&emu_lock);
        t->callback = 0;
        break;
    }
    case W_RECORD: {
        struct emu_event *ev = w->u.record.ev;
        if (ev->rec_stream == s && ev->rec_ticket == o->ticket) {
            ev->time_ms = emu_now_ms();
            ev->time_valid = 1;
        }
        break;
    }
    case W_FREE:
        snprintf(label, sizeof label, "cudaFreeAsync on stream %llu", s->id);
        emu_free_ptr(label, w->u.free.ptr);
        break;
    case W_GRAPH:
        emu_graph_run(s, w->u.graph.g, o->ticket);
        break;
    default:
        break;
    }
}

static void *worker_main(void *arg) {
    struct emu_stream *s = arg;
    emu_name_thread("worker of stream", s->id);
    pthread_mutex_lock(&emu_lock);
    for (;;) {
        while (!s->head && !s->destroyed) emu_wait();
        if (!s->head) break;
        struct emu_op *o = s->head;
        while (!deps_done(o)) emu_wait();
        if (o->delay && emu_cfg.delay_us > 0) {
            long long us = emu_cfg.delay_us;
            pthread_mutex_unlock(&emu_lock);
            emu_sleep_us(us);
            pthread_mutex_lock(&emu_lock);
        }
        run_op(s, o);
        s->head = o->next;
        if (!s->head) s->tail = NULL;
        s->completed = o->ticket;
        if (o->managed_window) emu_managed_window(s->device, -1);
        emu_work_drop(&o->w);
        free(o->deps);
        free(o);
        emu_wake();
    }
    s->worker = 0;
    forget_if_done(s);
    emu_wake();
    pthread_mutex_unlock(&emu_lock);
    return NULL;
}

void emu_wait_device(int device) {
    /* the list may change while this waits: the streams and their targets are copied */
    size_t n = 0;
    struct emu_dep *targets = emu_xmalloc((emu_nstreams ? emu_nstreams : 1) * sizeof *targets);
    for (size_t i = 0; i < emu_nstreams; i++) {
        struct emu_stream *s = emu_streams[i];
        if (device < 0 || s->device == device) targets[n++] = (struct emu_dep){s, s->enqueued};
    }
    for (size_t i = 0; i < n; i++)
        while (targets[i].s->completed < targets[i].ticket) emu_wait();
    free(targets);
}

void emu_stream_reset(int device) {
    for (size_t i = 0; i < emu_nstreams; i++) {
        struct emu_stream *s = emu_streams[i];
        if (s->device != device || s->kind != ST_OWNED || s->destroyed) continue;
        s->destroyed = 1;
        s->h->alive = 0;
        s->h->reset = 1;
    }
    for (size_t i = emu_nstreams; i-- > 0;) forget_if_done(emu_streams[i]);
    emu_wake();
}

/* ---- stream calls ---- */

static cudaError_t create_stream(cudaStream_t *out, unsigned flags, int priority) {
    if (!out) return cudaErrorInvalidValue;
    if (flags & ~(unsigned)cudaStreamNonBlocking) return cudaErrorInvalidValue;
    int d = emu_self()->device;
    if (!emu_valid_device(d)) return emu_cfg.devices ? cudaErrorInvalidDevice : cudaErrorNoDevice;
    if (priority > 0) priority = 0;
    if (priority < -5) priority = -5;
    struct emu_stream *s = emu_stream_make(ST_OWNED, d, flags, priority);
    *out = (cudaStream_t)s->h->value;
    return cudaSuccess;
}

static cudaError_t cudaStreamCreate_impl(cudaStream_t *pStream) {
    return create_stream(pStream, 0, 0);
}
EMU_API(cudaStreamCreate, (cudaStream_t * pStream), (pStream))

static cudaError_t cudaStreamCreateWithFlags_impl(cudaStream_t *pStream, unsigned int flags) {
    return create_stream(pStream, flags, 0);
}
EMU_API(cudaStreamCreateWithFlags, (cudaStream_t * pStream, unsigned int flags), (pStream, flags))

static cudaError_t cudaStreamCreateWithPriority_impl(cudaStream_t *pStream, unsigned int flags,
                                                     int priority) {
    return create_stream(pStream, flags, priority);
}
EMU_API(cudaStreamCreateWithPriority, (cudaStream_t * pStream, unsigned int flags, int priority),
        (pStream, flags, priority))

static cudaError_t cudaStreamDestroy_impl(cudaStream_t stream) {
    uintptr_t v = (uintptr_t)stream;
    if (v == 0 || v == (uintptr_t)cudaStreamLegacy || v == (uintptr_t)cudaStreamPerThread)
        return cudaErrorInvalidResourceHandle;
    struct emu_stream *s = emu_handle_take("cudaStreamDestroy", v, K_STREAM);
    if (!s) return cudaErrorInvalidResourceHandle;
    if (s->cap) emu_capture_invalidate(s->cap, cudaErrorStreamCaptureInvalidated);
    s->h->alive = 0;
    s->destroyed = 1;
    forget_if_done(s);
    emu_wake();
    return cudaSuccess;
}
EMU_API(cudaStreamDestroy, (cudaStream_t stream), (stream))

static cudaError_t cudaStreamGetFlags_impl(cudaStream_t hStream, unsigned int *flags) {
    cudaError_t e;
    struct emu_stream *s = emu_stream_resolve("cudaStreamGetFlags", hStream, &e);
    if (!s) return e;
    if (!flags) return cudaErrorInvalidValue;
    *flags = s->flags;
    return cudaSuccess;
}
EMU_API(cudaStreamGetFlags, (cudaStream_t hStream, unsigned int *flags), (hStream, flags))

static cudaError_t cudaStreamGetPriority_impl(cudaStream_t hStream, int *priority) {
    cudaError_t e;
    struct emu_stream *s = emu_stream_resolve("cudaStreamGetPriority", hStream, &e);
    if (!s) return e;
    if (!priority) return cudaErrorInvalidValue;
    *priority = s->priority;
    return cudaSuccess;
}
EMU_API(cudaStreamGetPriority, (cudaStream_t hStream, int *priority), (hStream, priority))

static cudaError_t cudaStreamGetId_impl(cudaStream_t hStream, unsigned long long *streamId) {
    cudaError_t e;
    struct emu_stream *s = emu_stream_resolve("cudaStreamGetId", hStream, &e);
    if (!s) return e;
    if (!streamId) return cudaErrorInvalidValue;
    *streamId = s->id;
    return cudaSuccess;
}
EMU_API(cudaStreamGetId, (cudaStream_t hStream, unsigned long long *streamId), (hStream, streamId))

static cudaError_t cudaStreamGetDevice_impl(cudaStream_t hStream, int *device) {
    cudaError_t e;
    struct emu_stream *s = emu_stream_resolve("cudaStreamGetDevice", hStream, &e);
    if (!s) return e;
    if (!device) return cudaErrorInvalidValue;
    *device = s->device;
    return cudaSuccess;
}
EMU_API(cudaStreamGetDevice, (cudaStream_t hStream, int *device), (hStream, device))

static cudaError_t cudaStreamSynchronize_impl(cudaStream_t stream) {
    cudaError_t e;
    struct emu_stream *s = emu_stream_resolve("cudaStreamSynchronize", stream, &e);
    if (!s) return e;
    if (s->cap) {
        emu_capture_invalidate(s->cap, cudaErrorStreamCaptureUnsupported);
        return cudaErrorStreamCaptureUnsupported;
    }
    /* A potentially unsafe call: forbidden (and invalidating) under another thread's global
     * capture, or this thread's own non-relaxed one, unless this thread is relaxed. */
    e = emu_capture_check_unsafe("cudaStreamSynchronize");
    if (e != cudaSuccess) return e;
    unsigned long long target = s->enqueued;
    while (s->completed < target) emu_wait();
    emu_pools_settle();
    return cudaSuccess;
}
EMU_API(cudaStreamSynchronize, (cudaStream_t stream), (stream))

static cudaError_t cudaStreamQuery_impl(cudaStream_t stream) {
    cudaError_t e;
    struct emu_stream *s = emu_stream_resolve("cudaStreamQuery", stream, &e);
    if (!s) return e;
    if (s->cap) {
        emu_capture_invalidate(s->cap, cudaErrorStreamCaptureUnsupported);
        return cudaErrorStreamCaptureUnsupported;
    }
    /* A potentially unsafe call: forbidden (and invalidating) under another thread's global
     * capture, or this thread's own non-relaxed one, unless this thread is relaxed. */
    e = emu_capture_check_unsafe("cudaStreamQuery");
    if (e != cudaSuccess) return e;
    return emu_stream_idle(s) ? cudaSuccess : cudaErrorNotReady;
}
EMU_API(cudaStreamQuery, (cudaStream_t stream), (stream))

static cudaError_t cudaDeviceSynchronize_impl(void) {
    cudaError_t e = emu_capture_check_unsafe("cudaDeviceSynchronize");
    if (e != cudaSuccess) return e;
    int d = emu_self()->device;
    if (!emu_valid_device(d)) return emu_cfg.devices ? cudaErrorInvalidDevice : cudaErrorNoDevice;
    emu_wait_device(d);
    emu_pools_settle();
    return cudaSuccess;
}
EMU_API(cudaDeviceSynchronize, (void), ())

static cudaError_t cudaLaunchHostFunc_impl(cudaStream_t stream, cudaHostFn_t fn, void *userData) {
    cudaError_t e;
    struct emu_stream *s = emu_stream_resolve("cudaLaunchHostFunc", stream, &e);
    if (!s) return e;
    if (!fn) return cudaErrorInvalidValue;
    struct emu_work w = {.type = W_HOST};
    w.u.host.fn = fn;
    w.u.host.user = userData;
    return emu_submit(s, &w, "cudaLaunchHostFunc");
}
EMU_API(cudaLaunchHostFunc, (cudaStream_t stream, cudaHostFn_t fn, void *userData),
        (stream, fn, userData))

static cudaError_t cudaStreamAddCallback_impl(cudaStream_t stream, cudaStreamCallback_t callback,
                                              void *userData, unsigned int flags) {
    cudaError_t e;
    struct emu_stream *s = emu_stream_resolve("cudaStreamAddCallback", stream, &e);
    if (!s) return e;
    if (!callback || flags != 0) return cudaErrorInvalidValue;
    struct emu_work w = {.type = W_CALLBACK};
    w.u.callback.fn = callback;
    w.u.callback.user = userData;
    w.u.callback.stream = stream;
    return emu_submit(s, &w, "cudaStreamAddCallback");
}
EMU_API(cudaStreamAddCallback,
        (cudaStream_t stream, cudaStreamCallback_t callback, void *userData, unsigned int flags),
        (stream, callback, userData, flags))

/* ---- events ---- */

static cudaError_t create_event(cudaEvent_t *out, unsigned flags) {
    if (!out) return cudaErrorInvalidValue;
    if (flags & ~(unsigned)(cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess))
        return cudaErrorInvalidValue;
    /* CUDA: an interprocess event must have timing disabled */
    if ((flags & cudaEventInterprocess) && !(flags & cudaEventDisableTiming))
        return cudaErrorInvalidValue;
    int d = emu_self()->device;
    if (!emu_valid_device(d)) return emu_cfg.devices ? cudaErrorInvalidDevice : cudaErrorNoDevice;
    struct emu_event *ev = emu_xcalloc(1, sizeof *ev);
    ev->device = d;
    ev->flags = flags;
    ev->h = emu_handle_new(K_EVENT, ev, d);
    *out = (cudaEvent_t)ev->h->value;
    return cudaSuccess;
}

static cudaError_t cudaEventCreate_impl(cudaEvent_t *event) { return create_event(event, 0); }
EMU_API(cudaEventCreate, (cudaEvent_t * event), (event))

static cudaError_t cudaEventCreateWithFlags_impl(cudaEvent_t *event, unsigned int flags) {
    return create_event(event, flags);
}
EMU_API(cudaEventCreateWithFlags, (cudaEvent_t * event, unsigned int flags), (event, flags))

static cudaError_t cudaEventDestroy_impl(cudaEvent_t event) {
    struct emu_event *ev = emu_handle_take("cudaEventDestroy", (uintptr_t)event, K_EVENT);
    if (!ev) return cudaErrorInvalidResourceHandle;
    /* this handle: an event opened from an IPC handle is another handle of the same event */
    emu_handle_peek((uintptr_t)event)->alive = 0;
    return cudaSuccess;
}
EMU_API(cudaEventDestroy, (cudaEvent_t event), (event))

/* Interprocess events: the handle is "cuda-emu event" and the event's handle value; opening it
 * (in this process: the emulator lets one process play both sides) makes another handle of the
 * same event, destroyed on its own. */
static const char IPC_EVENT_MAGIC[16] = "cuda-emu event";

static cudaError_t cudaIpcGetEventHandle_impl(cudaIpcEventHandle_t *handle, cudaEvent_t event) {
    if (!handle) return cudaErrorInvalidValue;
    struct emu_event *ev = emu_handle_get("cudaIpcGetEventHandle", (uintptr_t)event, K_EVENT);
    if (!ev) return cudaErrorInvalidResourceHandle;
    if (!(ev->flags & cudaEventInterprocess)) return cudaErrorInvalidResourceHandle;
    memset(handle, 0, sizeof *handle);
    memcpy(handle->reserved, IPC_EVENT_MAGIC, sizeof IPC_EVENT_MAGIC);
    uintptr_t value = ev->h->value;
    memcpy(handle->reserved + 16, &value, sizeof value);
    return cudaSuccess;
}
EMU_API(cudaIpcGetEventHandle, (cudaIpcEventHandle_t * handle, cudaEvent_t event), (handle, event))

static cudaError_t cudaIpcOpenEventHandle_impl(cudaEvent_t *event, cudaIpcEventHandle_t handle) {
    if (!event) return cudaErrorInvalidValue;
    if (memcmp(handle.reserved, IPC_EVENT_MAGIC, sizeof IPC_EVENT_MAGIC))
        return cudaErrorInvalidResourceHandle;
    uintptr_t value;
    memcpy(&value, handle.reserved + 16, sizeof value);
    struct emu_event *ev = emu_handle_get("cudaIpcOpenEventHandle", value, K_EVENT);
    if (!ev) return cudaErrorInvalidResourceHandle;
    struct emu_handle *h = emu_handle_new(K_EVENT, ev, ev->device);
    *event = (cudaEvent_t)h->value;
    return cudaSuccess;
}
EMU_API(cudaIpcOpenEventHandle, (cudaEvent_t * event, cudaIpcEventHandle_t handle), (event, handle))

static struct emu_event *event_for_record(const char *op, cudaEvent_t event) {
    struct emu_handle *h = emu_handle_peek((uintptr_t)event);
    if (h && h->kind == K_EVENT && !h->alive && !h->reset) {
        emu_hazard("record-on-destroyed-event", "%s: event %#llx was destroyed", op,
                   (unsigned long long)(uintptr_t)event);
        return NULL;
    }
    return emu_handle_get(op, (uintptr_t)event, K_EVENT);
}

static cudaError_t record(cudaEvent_t event, cudaStream_t stream, unsigned flags,
                          const char *op) {
    struct emu_event *ev = event_for_record(op, event);
    if (!ev) return cudaErrorInvalidResourceHandle;
    if (flags & ~(unsigned)cudaEventRecordExternal) return cudaErrorInvalidValue;
    cudaError_t e;
    struct emu_stream *s = emu_stream_resolve(op, stream, &e);
    if (!s) return e;
    if (s->device != ev->device) return cudaErrorInvalidResourceHandle;
    if (s->cap) {
        if (s->cap->invalidated) return cudaErrorStreamCaptureInvalidated;
        if (flags & cudaEventRecordExternal) {
            struct emu_work w = {.type = W_EVENT_RECORD};
            w.u.event.ev = ev;
            return emu_submit(s, &w, op);
        }
        ev->cap = s->cap;
        free(ev->cap_nodes);
        ev->ncap_nodes = s->ncap_deps;
        ev->cap_nodes = emu_xmalloc((s->ncap_deps ? s->ncap_deps : 1) * sizeof *ev->cap_nodes);
        if (s->ncap_deps) memcpy(ev->cap_nodes, s->cap_deps, s->ncap_deps * sizeof *s->cap_deps);
        return cudaSuccess;
    }
    struct emu_work w = {.type = W_RECORD};
    w.u.record.ev = ev;
    return emu_submit(s, &w, op);
}

static cudaError_t cudaEventRecord_impl(cudaEvent_t event, cudaStream_t stream) {
    return record(event, stream, 0, "cudaEventRecord");
}
EMU_API(cudaEventRecord, (cudaEvent_t event, cudaStream_t stream), (event, stream))

static cudaError_t cudaEventRecordWithFlags_impl(cudaEvent_t event, cudaStream_t stream,
                                                 unsigned int flags) {
    return record(event, stream, flags, "cudaEventRecordWithFlags");
}
EMU_API(cudaEventRecordWithFlags, (cudaEvent_t event, cudaStream_t stream, unsigned int flags),
        (event, stream, flags))

/* Querying or waiting for an event recorded in a capture that is still going on. */
static cudaError_t captured_event(struct emu_event *ev) {
    if (ev->cap && !ev->cap->ended) {
        emu_capture_invalidate(ev->cap, cudaErrorStreamCaptureUnsupported);
        return cudaErrorStreamCaptureUnsupported;
    }
    return cudaSuccess;
}

static cudaError_t cudaEventQuery_impl(cudaEvent_t event) {
    struct emu_event *ev = emu_handle_get("cudaEventQuery", (uintptr_t)event, K_EVENT);
    if (!ev) return cudaErrorInvalidResourceHandle;
    cudaError_t e = captured_event(ev);
    if (e != cudaSuccess) return e;
    e = emu_capture_check_unsafe("cudaEventQuery");
    if (e != cudaSuccess) return e;
    return emu_event_complete(ev) ? cudaSuccess : cudaErrorNotReady;
}
EMU_API(cudaEventQuery, (cudaEvent_t event), (event))

static cudaError_t cudaEventSynchronize_impl(cudaEvent_t event) {
    struct emu_event *ev = emu_handle_get("cudaEventSynchronize", (uintptr_t)event, K_EVENT);
    if (!ev) return cudaErrorInvalidResourceHandle;
    cudaError_t e = captured_event(ev);
    if (e != cudaSuccess) return e;
    e = emu_capture_check_unsafe("cudaEventSynchronize");
    if (e != cudaSuccess) return e;
    while (!emu_event_complete(ev)) emu_wait();
    emu_pools_settle();
    return cudaSuccess;
}
EMU_API(cudaEventSynchronize, (cudaEvent_t event), (event))

static cudaError_t cudaEventElapsedTime_impl(float *ms, cudaEvent_t start, cudaEvent_t end) {
    if (!ms) return cudaErrorInvalidValue;
    struct emu_event *a = emu_handle_get("cudaEventElapsedTime", (uintptr_t)start, K_EVENT);
    struct emu_event *b = emu_handle_get("cudaEventElapsedTime", (uintptr_t)end, K_EVENT);
    if (!a || !b) return cudaErrorInvalidResourceHandle;
    if ((a->flags | b->flags) & cudaEventDisableTiming) return cudaErrorInvalidResourceHandle;
    if (!a->rec_stream || !b->rec_stream) return cudaErrorInvalidResourceHandle;
    if (!emu_event_complete(a) || !emu_event_complete(b)) return cudaErrorNotReady;
    if (!a->time_valid || !b->time_valid) return cudaErrorInvalidResourceHandle;
    *ms = (float)(b->time_ms - a->time_ms);
    return cudaSuccess;
}
EMU_API(cudaEventElapsedTime, (float *ms, cudaEvent_t start, cudaEvent_t end), (ms, start, end))

static cudaError_t cudaStreamWaitEvent_impl(cudaStream_t stream, cudaEvent_t event,
                                            unsigned int flags) {
    if (flags & ~(unsigned)cudaEventWaitExternal) return cudaErrorInvalidValue;
    cudaError_t e;
    struct emu_stream *s = emu_stream_resolve("cudaStreamWaitEvent", stream, &e);
    if (!s) return e;
    struct emu_event *ev = emu_handle_get("cudaStreamWaitEvent", (uintptr_t)event, K_EVENT);
    if (!ev) return cudaErrorInvalidResourceHandle;
    struct emu_capture *evcap = ev->cap && !ev->cap->ended ? ev->cap : NULL;
    if (s->cap) {
        if (s->cap->invalidated) return cudaErrorStreamCaptureInvalidated;
        if (evcap == s->cap) { /* a join: the event's nodes become dependencies too */
            for (size_t i = 0; i < ev->ncap_nodes; i++) {
                int seen = 0;
                for (size_t j = 0; j < s->ncap_deps; j++) seen |= s->cap_deps[j] == ev->cap_nodes[i];
                if (seen) continue;
                s->cap_deps = emu_xrealloc(s->cap_deps, (s->ncap_deps + 1) * sizeof *s->cap_deps);
                s->cap_deps[s->ncap_deps++] = ev->cap_nodes[i];
            }
            return cudaSuccess;
        }
        if (evcap) {
            emu_capture_invalidate(s->cap, cudaErrorStreamCaptureMerge);
            return cudaErrorStreamCaptureMerge;
        }
        if (flags & cudaEventWaitExternal) {
            struct emu_work w = {.type = W_EVENT_WAIT};
            w.u.event.ev = ev;
            return emu_submit(s, &w, "cudaStreamWaitEvent");
        }
        emu_capture_invalidate(s->cap, cudaErrorStreamCaptureIsolation);
        return cudaErrorStreamCaptureIsolation;
    }
    if (evcap) { /* a fork: the stream joins the capture */
        if (s->kind == ST_LEGACY) {
            emu_capture_invalidate(evcap, cudaErrorStreamCaptureImplicit);
            return cudaErrorStreamCaptureImplicit;
        }
        s->cap = evcap;
        s->ncap_deps = ev->ncap_nodes;
        s->cap_deps = emu_xrealloc(s->cap_deps, (ev->ncap_nodes ? ev->ncap_nodes : 1) *
                                                    sizeof *s->cap_deps);
        if (ev->ncap_nodes)
            memcpy(s->cap_deps, ev->cap_nodes, ev->ncap_nodes * sizeof *s->cap_deps);
        evcap->streams =
            emu_xrealloc(evcap->streams, (evcap->nstreams + 1) * sizeof *evcap->streams);
        evcap->streams[evcap->nstreams++] = s;
        return cudaSuccess;
    }
    if (emu_event_complete(ev)) return cudaSuccess;
    struct emu_work w = {.type = W_NOP};
    cudaError_t r = emu_submit(s, &w, "cudaStreamWaitEvent");
    if (r == cudaSuccess) emu_op_add_dep(s->tail, ev->rec_stream, ev->rec_ticket);
    return r;
}
EMU_API(cudaStreamWaitEvent, (cudaStream_t stream, cudaEvent_t event, unsigned int flags),
        (stream, event, flags))
