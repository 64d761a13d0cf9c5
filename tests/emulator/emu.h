/* The CUDA emulator's internal declarations, shared by its source files (see README.md).
 *
 * Everything here is hidden (built with -fvisibility=hidden); what the library exports is the
 * CUDA functions declared by NVIDIA's cuda_runtime_api.h and defined here, and the cudaEmu*
 * control functions (core.c, memory.c). One mutex (emu_lock) guards all emulator state; one
 * condition variable (emu_cond) is broadcast whenever work completes or is queued. */
#ifndef CUDA_EMU_H
#define CUDA_EMU_H

/* Every CUDA function declared by NVIDIA's header and defined here is exported. */
#pragma GCC visibility push(default)
#include <cuda_runtime_api.h>
#pragma GCC visibility pop
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define EMU_MAX_DEVICES 8
#define EMU_EXPORT __attribute__((visibility("default")))

/* ---- configuration (core.c) ---- */
struct emu_config {
    int devices;                 /* CUDA_EMU_DEVICES, default 2 */
    long long delay_us;          /* CUDA_EMU_DELAY_US, default 1000 */
    int concurrent_managed[EMU_MAX_DEVICES]; /* CUDA_EMU_CONCURRENT_MANAGED, default 1 */
    int runtime_version;         /* CUDA_EMU_RUNTIME_VERSION, default 13020 */
    int driver_version;          /* CUDA_EMU_DRIVER_VERSION, default 13020 */
};
extern struct emu_config emu_cfg;

extern pthread_mutex_t emu_lock;
extern pthread_cond_t emu_cond;
void emu_init(void);
void emu_wake(void);                          /* broadcast emu_cond (lock held) */
void emu_wait(void);                          /* wait on emu_cond (lock held) */
int emu_wait_ms(long ms);                     /* timed wait; 0 on timeout */
void emu_sleep_us(long long us);

/* ---- per host thread state (core.c) ---- */
struct emu_stream;
struct emu_thread {
    int device;                  /* current device, default 0 */
    int capture_mode;            /* cudaThreadExchangeStreamCaptureMode, default global */
    int callback;                /* inside a host function, callback or destructor */
    cudaError_t last_error;
    unsigned serial;             /* a number for this thread, from 1 */
    char name[40];
    struct emu_stream *per_thread[EMU_MAX_DEVICES];
};
struct emu_thread *emu_self(void);
void emu_name_thread(const char *what, unsigned long long n); /* "what n" */

/* ---- API entry and exit (core.c) ---- */
struct emu_call {
    const char *name;
    int after_fault;             /* mode 2: do the work, then return after_code */
    cudaError_t after_code;
};
/* Returns cudaSuccess when the call may proceed; otherwise the code to return at once. */
cudaError_t emu_enter(struct emu_call *call, const char *name);
cudaError_t emu_leave(struct emu_call *call, cudaError_t result);

/* Defines an exported CUDA function that runs NAME_impl with the lock held. */
#define EMU_API(NAME, PARAMS, ARGS)                                     \
    cudaError_t NAME PARAMS {                                           \
        struct emu_call call_;                                          \
        cudaError_t e_ = emu_enter(&call_, #NAME);                      \
        if (e_ != cudaSuccess) return emu_leave(&call_, e_);            \
        pthread_mutex_lock(&emu_lock);                                  \
        e_ = NAME##_impl ARGS;                                          \
        pthread_mutex_unlock(&emu_lock);                                \
        return emu_leave(&call_, e_);                                   \
    }

/* ---- hazards (core.c) ---- */
void emu_hazard(const char *kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- handles (core.c) ---- */
enum emu_kind {
    K_STREAM = 1, K_EVENT, K_GRAPH, K_NODE, K_EXEC, K_LIBRARY, K_KERNEL, K_POOL,
    K_TEXTURE, K_SURFACE, K_ARRAY, K_USEROBJ, K_KIND_COUNT
};
struct emu_handle {
    enum emu_kind kind;
    int alive;
    int reset;                   /* destroyed by cudaDeviceReset */
    int device;
    void *obj;
    uintptr_t value;
};
struct emu_handle *emu_handle_new(enum emu_kind kind, void *obj, int device);
/* The live object behind `value`, or NULL after logging a hazard (unknown, destroyed). */
void *emu_handle_get(const char *op, uintptr_t value, enum emu_kind kind);
/* As emu_handle_get, for a destroy: a second destroy is the hazard double-destroy. */
void *emu_handle_take(const char *op, uintptr_t value, enum emu_kind kind);
struct emu_handle *emu_handle_at(size_t index);   /* NULL past the end */
struct emu_handle *emu_handle_peek(uintptr_t value); /* no hazard; NULL when unknown */
const char *emu_kind_name(enum emu_kind kind);

/* ---- memory (memory.c) ---- */
enum emu_mem_kind { M_DEVICE = 1, M_PINNED, M_MANAGED, M_ARRAY, M_GRAPH, M_NAME, M_IPC };
enum emu_mem_state { S_LIVE = 1, S_FREED, S_UNMAPPED /* a graph allocation not made yet */ };
struct emu_pool;
struct emu_alloc {
    char *base;                  /* what the application sees */
    char *alias;                 /* the same pages, always read-write, for the emulator */
    size_t size, mapped;
    enum emu_mem_kind kind;
    enum emu_mem_state state;
    int device;
    struct emu_pool *pool;
    char *freed_by;              /* what freed it (a copy) */
    unsigned long long serial;
    int plain;                   /* from cudaMalloc: what cudaIpcGetMemHandle accepts */
    unsigned long long ipc_source; /* M_IPC: the serial of the allocation it maps */
    unsigned ipc_refs;           /* M_IPC: opens not yet closed */
    int fd_plus1;                /* exported: a memfd behind `base`, plus one (0: none) */
};
struct emu_alloc *emu_alloc_new(size_t size, enum emu_mem_kind kind, int device);
struct emu_alloc *emu_alloc_find(const void *p);
void emu_alloc_free(struct emu_alloc *a, const char *by);  /* quarantine */
void emu_alloc_revive(struct emu_alloc *a);                /* a graph allocation made again */
/* The emulator's address for [p, p+n) touched by `op`, or NULL after logging a hazard.
 * device_side: p must be emulated memory (device, pinned, managed, array). */
char *emu_access(const char *op, const void *p, size_t n, int write, int device_side);
/* The linear memory texture object `tex` reads, and its size (NULL and a hazard when the
 * object is destroyed or unknown). */
const void *emu_texture_linear(const char *op, unsigned long long tex, size_t *bytes);
/* A copy of n bytes as cudaMemcpyKind `kind` describes, every side checked. */
void emu_copy(const char *op, void *dst, const void *src, size_t n, int kind);
void emu_set2d(const char *op, void *dst, size_t pitch, unsigned value, unsigned elem,
               size_t width, size_t height);
void emu_free_ptr(const char *op, void *p);  /* a stream-ordered or graph free */
void emu_managed_window(int device, int delta); /* kernels of a device without concurrent managed access */
void emu_memory_reset(int device);
int emu_is_unsafe_in_capture(const char *op);
size_t emu_device_used(int device);
void emu_pools_settle(void);
void emu_pools_reset(int device);   /* a synchronisation releases pool memory above thresholds */

/* ---- devices (device.c) ---- */
struct emu_device {
    struct emu_stream *legacy;
    struct emu_pool *default_pool, *current_pool;
    int peer[EMU_MAX_DEVICES];
    size_t limits[8];
    int managed_active;          /* kernels enqueued and not done, when concurrent access is 0 */
};
extern struct emu_device emu_devices[EMU_MAX_DEVICES];
int emu_valid_device(int d);
struct emu_pool *emu_default_pool(int d);
void emu_pool_used(struct emu_pool *p, long long delta);

/* ---- work items: stream operations and graph nodes (stream.c, graph.c) ---- */
struct emu_kernel;
struct emu_graph;
struct emu_event;
enum emu_work_type {
    W_NOP = 1, W_COPY, W_SET, W_KERNEL, W_HOST, W_CALLBACK, W_RECORD, W_FREE, W_GRAPH,
    W_EMPTY, W_CHILD, W_EVENT_RECORD, W_EVENT_WAIT, W_MEM_ALLOC, W_MEM_FREE
};
struct emu_work {
    enum emu_work_type type;
    union {
        struct { void *dst; const void *src; size_t n; int kind; } copy;
        struct { void *dst; size_t pitch; unsigned value, elem; size_t width, height; } set;
        struct { struct emu_kernel *k; dim3 grid, block; size_t smem;
                 unsigned char *args; size_t argbytes; } kernel;
        struct { cudaHostFn_t fn; void *user; } host;
        struct { cudaStreamCallback_t fn; void *user; cudaStream_t stream; } callback;
        struct { struct emu_event *ev; unsigned long long serial; } record;
        struct { void *ptr; } free;
        struct { struct emu_graph *g; } graph;    /* W_GRAPH (a launch) and W_CHILD */
        struct { struct emu_event *ev; } event;   /* W_EVENT_RECORD, W_EVENT_WAIT */
        struct { struct emu_alloc *a; } alloc;    /* W_MEM_ALLOC */
    } u;
};
void emu_work_copy(struct emu_work *dst, const struct emu_work *src);  /* deep */
void emu_work_drop(struct emu_work *w);
const char *emu_work_name(const struct emu_work *w);

/* ---- streams and events (stream.c) ---- */
enum emu_stream_kind { ST_OWNED = 1, ST_LEGACY, ST_PER_THREAD };
struct emu_dep { struct emu_stream *s; unsigned long long ticket; };
struct emu_op {
    struct emu_op *next;
    struct emu_work w;
    unsigned long long ticket;
    struct emu_dep *deps;
    size_t ndeps;
    int delay;                   /* sleeps before running */
    int managed_window;          /* holds a managed-memory window of its device */
};
struct emu_capture;
struct emu_node;
struct emu_stream {
    struct emu_handle *h;        /* NULL for the legacy and per-thread streams */
    enum emu_stream_kind kind;
    int device;
    unsigned flags;
    int priority;
    unsigned long long id;
    struct emu_op *head, *tail;
    unsigned long long enqueued, completed;
    int worker;                  /* a worker thread is running */
    int destroyed;
    /* capture */
    struct emu_capture *cap;
    struct emu_node **cap_deps;
    size_t ncap_deps;
    cudaGraphNode_t *cap_dep_handles;  /* what cudaStreamGetCaptureInfo hands out */
    cudaGraphEdgeData *cap_edge_data;
};
struct emu_event {
    struct emu_handle *h;
    int device;
    unsigned flags;
    struct emu_stream *rec_stream;     /* last record; NULL: never recorded (complete) */
    unsigned long long rec_ticket;
    unsigned long long serial;         /* counts records */
    double time_ms;
    int time_valid;
    struct emu_capture *cap;           /* recorded in this (active) capture */
    struct emu_node **cap_nodes;
    size_t ncap_nodes;
};
extern struct emu_stream **emu_streams;
extern size_t emu_nstreams;
struct emu_stream *emu_stream_resolve(const char *op, cudaStream_t s, cudaError_t *err);
struct emu_stream *emu_stream_make(enum emu_stream_kind kind, int device, unsigned flags,
                                   int priority);
/* Queues w on s (or adds it to s's capture). Takes ownership of w's contents. */
cudaError_t emu_submit(struct emu_stream *s, struct emu_work *w, const char *op);
int emu_stream_idle(struct emu_stream *s);
int emu_event_complete(struct emu_event *ev);
void emu_op_add_dep(struct emu_op *o, struct emu_stream *s, unsigned long long ticket);
/* Waits until every stream of `device` (-1: all) is idle. */
void emu_wait_device(int device);
void emu_run_callback_fn(cudaHostFn_t fn, void *user);
double emu_now_ms(void);
void emu_stream_reset(int device);

/* ---- capture and graphs (graph.c) ---- */
struct emu_uref { struct emu_uobj *o; unsigned count; };
struct emu_uobj {
    struct emu_handle *h;
    void *ptr;
    cudaHostFn_t destroy;
    long long refs;
};
struct emu_node {
    struct emu_handle *h;        /* NULL inside executable graphs' private copies */
    struct emu_graph *g;
    size_t index;                /* position in g->nodes */
    struct emu_work w;
    size_t *deps;                /* indices of earlier nodes */
    size_t ndeps;
};
struct emu_graph {
    struct emu_handle *h;        /* NULL for private copies */
    struct emu_node **nodes;
    size_t n, cap;
    struct emu_uref *urefs;
    size_t nurefs;
};
struct emu_capture {
    unsigned long long id;
    int mode;
    int invalidated;
    int ended;
    int made_graph;              /* the capture created g (not cudaStreamBeginCaptureToGraph) */
    cudaError_t why;
    unsigned thread;
    int device;
    struct emu_stream *origin;
    struct emu_graph *g;
    struct emu_stream **streams;
    size_t nstreams;
};
struct emu_node *emu_capture_add(struct emu_stream *s, struct emu_work *w);
cudaError_t emu_capture_check_unsafe(const char *op);   /* global-mode rule */
void emu_capture_invalidate(struct emu_capture *c, cudaError_t why);
struct emu_graph *emu_graph_clone(struct emu_graph *g, int registered);
void emu_graph_release(struct emu_graph *g);    /* a private copy: frees it */
int emu_graph_has_kernels(struct emu_graph *g);
void emu_graph_run(struct emu_stream *s, struct emu_graph *g, unsigned long long ticket);
void emu_graph_prepare_launch(struct emu_stream *s, struct emu_graph *g, struct emu_op *o);
void emu_uobj_release(struct emu_uobj *o, unsigned count);
void emu_destructors_idle(int *idle);
void emu_graph_reset(int device);

/* ---- kernels (kernel.c) ---- */
struct emu_library;
#define EMU_MAX_PARAMS 64
struct emu_kernel {
    struct emu_handle *h;
    struct emu_library *lib;
    struct emu_alloc *name;      /* the name handed out, in pages of its own */
    char *ident;                 /* the emulator's copy of the name */
    int known_layout;
    size_t nparams;
    size_t off[EMU_MAX_PARAMS], size[EMU_MAX_PARAMS];
    int max_dynamic_smem;
};
struct emu_kernel *emu_kernel_get(const char *op, const void *func);
/* Copies a launch's arguments into w (a W_KERNEL work). */
cudaError_t emu_kernel_args(struct emu_kernel *k, void **args, struct emu_work *w);
void emu_kernel_run(struct emu_stream *s, struct emu_work *w);

/* ---- helpers ---- */
void *emu_xmalloc(size_t n);
void *emu_xcalloc(size_t n, size_t size);
void *emu_xrealloc(void *p, size_t n);
char *emu_xstrdup(const char *s);

#endif
