/* The emulator's core: configuration from the environment, the lock, per-thread state, the
 * entry and exit of every CUDA call (fault injection, calls from host callbacks, the last
 * error), the hazard log, the handle registry, error names, versions, and the cudaEmu*
 * control functions the tests call. */
#define _GNU_SOURCE
#include "emu.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct emu_config emu_cfg;
pthread_mutex_t emu_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t emu_cond;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static long long env_ll(const char *name, long long fallback, long long lo, long long hi) {
    const char *v = getenv(name);
    if (!v || !*v) return fallback;
    char *end = NULL;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (errno || !end || *end || x < lo || x > hi) {
        fprintf(stderr, "cuda-emu: ignoring %s=%s (expected an integer in %lld..%lld)\n", name,
                v, lo, hi);
        return fallback;
    }
    return x;
}

static void init(void) {
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&emu_cond, &attr);
    pthread_condattr_destroy(&attr);
    emu_cfg.devices = (int)env_ll("CUDA_EMU_DEVICES", 2, 0, EMU_MAX_DEVICES);
    emu_cfg.delay_us = env_ll("CUDA_EMU_DELAY_US", 1000, 0, 60000000);
    int cm = (int)env_ll("CUDA_EMU_CONCURRENT_MANAGED", 1, 0, 1);
    for (int d = 0; d < EMU_MAX_DEVICES; d++) emu_cfg.concurrent_managed[d] = cm;
    emu_cfg.runtime_version = (int)env_ll("CUDA_EMU_RUNTIME_VERSION", 13020, 0, 1000000);
    emu_cfg.driver_version = (int)env_ll("CUDA_EMU_DRIVER_VERSION", 13020, 0, 1000000);
}

void emu_init(void) { pthread_once(&init_once, init); }
void emu_wake(void) { pthread_cond_broadcast(&emu_cond); }
void emu_wait(void) { pthread_cond_wait(&emu_cond, &emu_lock); }

int emu_wait_ms(long ms) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_sec += ms / 1000;
    ts.tv_nsec += (ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return pthread_cond_timedwait(&emu_cond, &emu_lock, &ts) != ETIMEDOUT;
}

void emu_sleep_us(long long us) {
    if (us <= 0) return;
    struct timespec ts = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* ---- helpers ---- */

static void out_of_memory(void) {
    fputs("cuda-emu: out of host memory\n", stderr);
    abort();
}
void *emu_xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) out_of_memory();
    return p;
}
void *emu_xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) out_of_memory();
    return p;
}
void *emu_xrealloc(void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q) out_of_memory();
    return q;
}
char *emu_xstrdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *p = emu_xmalloc(n);
    memcpy(p, s, n);
    return p;
}

/* ---- per host thread state ---- */

static __thread struct emu_thread self;
static __thread int self_ready;
static unsigned next_thread_serial;

struct emu_thread *emu_self(void) {
    if (!self_ready) {
        self_ready = 1;
        self.device = 0;
        self.capture_mode = cudaStreamCaptureModeGlobal;
        self.serial = __atomic_add_fetch(&next_thread_serial, 1, __ATOMIC_RELAXED);
        snprintf(self.name, sizeof self.name, "host thread %ld", (long)syscall(SYS_gettid));
    }
    return &self;
}

void emu_name_thread(const char *what, unsigned long long n) {
    struct emu_thread *t = emu_self();
    snprintf(t->name, sizeof t->name, "%s %llu", what, n);
}

/* ---- hazards ---- */

static pthread_mutex_t hazard_lock = PTHREAD_MUTEX_INITIALIZER;
static char **hazards;
static size_t nhazards, cap_hazards;

void emu_hazard(const char *kind, const char *fmt, ...) {
    char message[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    char line[1024];
    snprintf(line, sizeof line, "%s: %s [%s]", kind, message, emu_self()->name);
    pthread_mutex_lock(&hazard_lock);
    if (nhazards == cap_hazards) {
        cap_hazards = cap_hazards ? 2 * cap_hazards : 16;
        hazards = emu_xrealloc(hazards, cap_hazards * sizeof *hazards);
    }
    hazards[nhazards++] = emu_xstrdup(line);
    pthread_mutex_unlock(&hazard_lock);
    fprintf(stderr, "cuda-emu hazard: %s\n", line);
}

/* ---- fault injection ---- */

struct fault {
    char function[96];
    int remaining;
    cudaError_t code;
    int mode;
};
static struct fault faults[64];
static size_t nfaults;

cudaError_t emu_enter(struct emu_call *call, const char *name) {
    emu_init();
    call->name = name;
    call->after_fault = 0;
    call->after_code = cudaSuccess;
    struct emu_thread *t = emu_self();
    if (t->callback) {
        emu_hazard("callback-cuda-call", "%s called from a host callback (CUDA forbids it)",
                   name);
        return cudaErrorNotPermitted;
    }
    cudaError_t now = cudaSuccess;
    pthread_mutex_lock(&emu_lock);
    for (size_t i = 0; i < nfaults; i++) {
        struct fault *f = &faults[i];
        if (f->remaining <= 0 || strcmp(f->function, name) != 0) continue;
        if (--f->remaining > 0) continue;
        if (f->mode == 2) {
            call->after_fault = 1;
            call->after_code = f->code;
        } else {
            now = f->code;
        }
        break;
    }
    pthread_mutex_unlock(&emu_lock);
    return now;
}

cudaError_t emu_leave(struct emu_call *call, cudaError_t result) {
    if (result == cudaSuccess && call->after_fault) result = call->after_code;
    if (result != cudaSuccess && result != cudaErrorNotReady) emu_self()->last_error = result;
    return result;
}

/* ---- handles ----
 * A handle is EMU_HANDLE_BASE + 16 * index: never a host address the application could
 * own, never 0, 1 or 2 (the special stream handles), and checked before any use. Entries are
 * never freed, so a destroyed handle stays recognisable. */

#define EMU_HANDLE_BASE 0x7e5700000000ULL
#define CHUNK 4096
static struct emu_handle *chunks[4096];
static size_t nhandles;

static const char *kind_names[K_KIND_COUNT] = {
    "?", "stream", "event", "graph", "graph node", "executable graph", "library", "kernel",
    "memory pool", "texture object", "surface object", "array", "user object",
};

const char *emu_kind_name(enum emu_kind kind) {
    return kind > 0 && kind < K_KIND_COUNT ? kind_names[kind] : "?";
}

struct emu_handle *emu_handle_new(enum emu_kind kind, void *obj, int device) {
    size_t i = nhandles;
    if (i / CHUNK >= sizeof chunks / sizeof chunks[0]) out_of_memory();
    if (!chunks[i / CHUNK]) chunks[i / CHUNK] = emu_xcalloc(CHUNK, sizeof(struct emu_handle));
    struct emu_handle *h = &chunks[i / CHUNK][i % CHUNK];
    h->kind = kind;
    h->alive = 1;
    h->reset = 0;
    h->device = device;
    h->obj = obj;
    h->value = (uintptr_t)(EMU_HANDLE_BASE + 16 * (unsigned long long)i);
    nhandles++;
    return h;
}

struct emu_handle *emu_handle_at(size_t index) {
    return index < nhandles ? &chunks[index / CHUNK][index % CHUNK] : NULL;
}

struct emu_handle *emu_handle_peek(uintptr_t value) {
    unsigned long long v = value;
    if (v < EMU_HANDLE_BASE || (v - EMU_HANDLE_BASE) % 16) return NULL;
    return emu_handle_at((size_t)((v - EMU_HANDLE_BASE) / 16));
}

static void *checked(const char *op, uintptr_t value, enum emu_kind kind, int destroy) {
    struct emu_handle *h = emu_handle_peek(value);
    if (!h) {
        emu_hazard("unknown-handle", "%s: %#llx is no %s the emulator made", op,
                   (unsigned long long)value, emu_kind_name(kind));
        return NULL;
    }
    if (h->kind != kind) {
        emu_hazard("unknown-handle", "%s: %#llx is a %s, not a %s", op,
                   (unsigned long long)value, emu_kind_name(h->kind), emu_kind_name(kind));
        return NULL;
    }
    if (!h->alive) {
        if (h->reset)
            emu_hazard("use-after-reset", "%s: %s %#llx was destroyed by cudaDeviceReset", op,
                       emu_kind_name(kind), (unsigned long long)value);
        else if (destroy)
            emu_hazard("double-destroy", "%s: %s %#llx was already destroyed", op,
                       emu_kind_name(kind), (unsigned long long)value);
        else
            emu_hazard("use-after-destroy", "%s: %s %#llx was destroyed", op,
                       emu_kind_name(kind), (unsigned long long)value);
        return NULL;
    }
    return h->obj;
}

void *emu_handle_get(const char *op, uintptr_t value, enum emu_kind kind) {
    return checked(op, value, kind, 0);
}

void *emu_handle_take(const char *op, uintptr_t value, enum emu_kind kind) {
    return checked(op, value, kind, 1);
}

/* ---- error names ---- */

struct error_text {
    cudaError_t code;
    const char *name, *text;
};
#define E(code, text) {code, #code, text}
static const struct error_text errors[] = {
    E(cudaSuccess, "no error"),
    E(cudaErrorInvalidValue, "invalid argument"),
    E(cudaErrorMemoryAllocation, "out of memory"),
    E(cudaErrorInitializationError, "initialization error"),
    E(cudaErrorCudartUnloading, "driver shutting down"),
    E(cudaErrorInvalidConfiguration, "invalid configuration argument"),
    E(cudaErrorInvalidDevicePointer, "invalid device pointer"),
    E(cudaErrorInvalidMemcpyDirection, "invalid copy direction for memcpy"),
    E(cudaErrorInvalidDeviceFunction, "invalid device function"),
    E(cudaErrorNoDevice, "no CUDA-capable device is detected"),
    E(cudaErrorInvalidDevice, "invalid device ordinal"),
    E(cudaErrorInvalidKernelImage, "device kernel image is invalid"),
    E(cudaErrorInvalidPtx, "a PTX JIT compilation failed"),
    E(cudaErrorFileNotFound, "file not found"),
    E(cudaErrorInvalidResourceHandle, "invalid resource handle"),
    E(cudaErrorIllegalState, "the operation cannot be performed in the present state"),
    E(cudaErrorSymbolNotFound, "named symbol not found"),
    E(cudaErrorNotReady, "device not ready"),
    E(cudaErrorPeerAccessAlreadyEnabled, "peer access is already enabled"),
    E(cudaErrorPeerAccessNotEnabled, "peer access has not been enabled"),
    E(cudaErrorContextIsDestroyed, "context is destroyed"),
    E(cudaErrorNotPermitted, "operation not permitted"),
    E(cudaErrorNotSupported, "operation not supported"),
    E(cudaErrorStreamCaptureUnsupported, "operation not permitted when stream is capturing"),
    E(cudaErrorStreamCaptureInvalidated,
      "operation failed due to a previous error during capture"),
    E(cudaErrorStreamCaptureMerge, "operation would result in a merge of separate capture sequences"),
    E(cudaErrorStreamCaptureUnmatched, "capture was not ended in the same stream as it began"),
    E(cudaErrorStreamCaptureUnjoined, "capturing stream has unjoined work"),
    E(cudaErrorStreamCaptureIsolation,
      "dependency created on uncaptured work in another stream"),
    E(cudaErrorStreamCaptureImplicit,
      "operation would make the legacy stream depend on a capturing blocking stream"),
    E(cudaErrorStreamCaptureWrongThread,
      "attempt to terminate a thread-local capture sequence from another thread"),
    E(cudaErrorGraphExecUpdateFailure,
      "the graph update was not performed because it included changes which violated "
      "constraints specific to instantiated graph update"),
    E(cudaErrorUnknown, "unknown error"),
};
#undef E

EMU_EXPORT const char *cudaGetErrorName(cudaError_t error) {
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].code == error) return errors[i].name;
    return "unrecognized error code";
}

EMU_EXPORT const char *cudaGetErrorString(cudaError_t error) {
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].code == error) return errors[i].text;
    return "unrecognized error code";
}

cudaError_t cudaGetLastError(void) {
    struct emu_call call;
    cudaError_t e = emu_enter(&call, "cudaGetLastError");
    if (e != cudaSuccess) return e;
    struct emu_thread *t = emu_self();
    cudaError_t last = t->last_error;
    t->last_error = cudaSuccess;
    return call.after_fault ? call.after_code : last;
}

cudaError_t cudaPeekAtLastError(void) {
    struct emu_call call;
    cudaError_t e = emu_enter(&call, "cudaPeekAtLastError");
    if (e != cudaSuccess) return e;
    return call.after_fault ? call.after_code : emu_self()->last_error;
}

/* ---- versions, logs, capture mode ---- */

static cudaError_t cudaRuntimeGetVersion_impl(int *v) {
    if (!v) return cudaErrorInvalidValue;
    *v = emu_cfg.runtime_version;
    return cudaSuccess;
}
EMU_API(cudaRuntimeGetVersion, (int *runtimeVersion), (runtimeVersion))

static cudaError_t cudaDriverGetVersion_impl(int *v) {
    if (!v) return cudaErrorInvalidValue;
    *v = emu_cfg.driver_version;
    return cudaSuccess;
}
EMU_API(cudaDriverGetVersion, (int *driverVersion), (driverVersion))

/* Writes all *size bytes the caller promised: the log text, NUL-padded (the widest write the
 * contract allows, so a buffer smaller than *size is overrun for certain). */
static cudaError_t cudaLogsDumpToMemory_impl(cudaLogIterator *iterator, char *buffer,
                                             size_t *size, unsigned int flags) {
    (void)iterator;
    if (!buffer || !size || flags != 0) return cudaErrorInvalidValue;
    static const char text[] = "[cuda-emu] no driver log entries\n";
    size_t n = *size;
    if (n == 0) return cudaErrorInvalidValue;
    size_t copy = n - 1 < sizeof text - 1 ? n - 1 : sizeof text - 1;
    memcpy(buffer, text, copy);
    memset(buffer + copy, 0, n - copy);
    *size = copy;
    return cudaSuccess;
}
EMU_API(cudaLogsDumpToMemory,
        (cudaLogIterator * iterator, char *buffer, size_t *size, unsigned int flags),
        (iterator, buffer, size, flags))

static cudaError_t cudaThreadExchangeStreamCaptureMode_impl(enum cudaStreamCaptureMode *mode) {
    if (!mode) return cudaErrorInvalidValue;
    int m = (int)*mode;
    if (m != cudaStreamCaptureModeGlobal && m != cudaStreamCaptureModeThreadLocal &&
        m != cudaStreamCaptureModeRelaxed)
        return cudaErrorInvalidValue;
    struct emu_thread *t = emu_self();
    *mode = (enum cudaStreamCaptureMode)t->capture_mode;
    t->capture_mode = m;
    return cudaSuccess;
}
EMU_API(cudaThreadExchangeStreamCaptureMode, (enum cudaStreamCaptureMode * mode), (mode))

/* ---- control functions for tests ---- */

EMU_EXPORT int cudaEmuInjectFault(const char *function, int nth_call, int error_code, int mode) {
    emu_init();
    if (!function || strlen(function) >= sizeof faults[0].function || nth_call < 1 ||
        mode < 0 || mode > 2 || error_code == 0)
        return -1;
    pthread_mutex_lock(&emu_lock);
    int result = -1;
    if (nfaults < sizeof faults / sizeof faults[0]) {
        struct fault *f = &faults[nfaults++];
        snprintf(f->function, sizeof f->function, "%s", function);
        f->remaining = nth_call;
        f->code = (cudaError_t)error_code;
        f->mode = mode;
        result = 0;
    }
    pthread_mutex_unlock(&emu_lock);
    return result;
}

EMU_EXPORT int cudaEmuConfigure(const char *key, long long value) {
    emu_init();
    if (!key) return -1;
    int ok = 0;
    pthread_mutex_lock(&emu_lock);
    if (!strcmp(key, "delay_us") && value >= 0) {
        emu_cfg.delay_us = value;
        ok = 1;
    } else if (!strcmp(key, "concurrent_managed") && (value == 0 || value == 1)) {
        for (int d = 0; d < EMU_MAX_DEVICES; d++) emu_cfg.concurrent_managed[d] = (int)value;
        ok = 1;
    } else if (!strcmp(key, "runtime_version") && value >= 0 && value <= 1000000) {
        emu_cfg.runtime_version = (int)value;
        ok = 1;
    } else if (!strcmp(key, "driver_version") && value >= 0 && value <= 1000000) {
        emu_cfg.driver_version = (int)value;
        ok = 1;
    }
    pthread_mutex_unlock(&emu_lock);
    return ok ? 0 : -1;
}

EMU_EXPORT size_t cudaEmuHazardCount(void) {
    pthread_mutex_lock(&hazard_lock);
    size_t n = nhazards;
    pthread_mutex_unlock(&hazard_lock);
    return n;
}

/* Writes the log, one hazard a line, NUL-terminated within len bytes; returns the length of
 * the whole log (as snprintf). */
EMU_EXPORT size_t cudaEmuHazardText(char *buf, size_t len) {
    pthread_mutex_lock(&hazard_lock);
    size_t total = 0;
    for (size_t i = 0; i < nhazards; i++) {
        size_t n = strlen(hazards[i]);
        for (size_t j = 0; j <= n; j++) {
            char c = j < n ? hazards[i][j] : '\n';
            if (buf && total + 1 < len) buf[total] = c;
            total++;
        }
    }
    if (buf && len) buf[total < len ? total : len - 1] = 0;
    pthread_mutex_unlock(&hazard_lock);
    return total;
}

EMU_EXPORT void cudaEmuClearHazards(void) {
    pthread_mutex_lock(&hazard_lock);
    for (size_t i = 0; i < nhazards; i++) free(hazards[i]);
    nhazards = 0;
    pthread_mutex_unlock(&hazard_lock);
}

/* Waits until every stream's queue is empty and every pending user-object destructor has
 * run: 0, or -1 after timeout_ms. */
EMU_EXPORT int cudaEmuQuiesce(int timeout_ms) {
    emu_init();
    pthread_mutex_lock(&emu_lock);
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    int result = -1;
    for (;;) {
        int idle = 1;
        for (size_t i = 0; i < emu_nstreams && idle; i++) idle = emu_stream_idle(emu_streams[i]);
        if (idle) emu_destructors_idle(&idle);
        if (idle) {
            result = 0;
            break;
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        long elapsed = (long)(now.tv_sec - start.tv_sec) * 1000 +
                       (now.tv_nsec - start.tv_nsec) / 1000000;
        if (elapsed >= timeout_ms) break;
        emu_wait_ms(timeout_ms - elapsed < 50 ? timeout_ms - elapsed : 50);
    }
    pthread_mutex_unlock(&emu_lock);
    return result;
}
