/* Stream capture, graphs, executable graphs and user objects.
 *
 * A capture collects the work queued on its streams as nodes of a graph; an event recorded in
 * it carries the recording stream's dependencies, so a stream that waits on it joins the
 * capture (fork) and the origin's wait on an event of a joined stream joins it back. Ending
 * the capture fails with cudaErrorStreamCaptureUnjoined when a joined stream's last nodes are
 * not dependencies of the origin's. Global mode forbids "potentially unsafe" calls
 * (emu_capture_check_unsafe) and invalidates the captures that forbade them.
 *
 * Nodes are kept in the order they were added, which is a dependency order: a launch runs
 * them one after the other on the launch stream's worker. An executable graph holds a private
 * copy of its graph; each launch runs a private copy of the executable's, so a launch never
 * sees a later update, and user objects referenced by a graph stay alive while any graph,
 * executable graph or pending launch holds them. User-object destructors run on an emulator
 * thread marked as a callback thread. */
#define _GNU_SOURCE
#include "emu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct emu_capture **captures; /* active ones */
static size_t ncaptures;
static unsigned long long next_capture_id;

/* ---- graphs ---- */

static struct emu_graph *graph_new(int registered, int device) {
    struct emu_graph *g = emu_xcalloc(1, sizeof *g);
    if (registered) g->h = emu_handle_new(K_GRAPH, g, device);
    return g;
}

static struct emu_node *graph_add(struct emu_graph *g, struct emu_work *w, const size_t *deps,
                                  size_t ndeps) {
    struct emu_node *n = emu_xcalloc(1, sizeof *n);
    n->g = g;
    n->w = *w;
    n->index = g->n;
    n->ndeps = ndeps;
    n->deps = emu_xmalloc((ndeps ? ndeps : 1) * sizeof *n->deps);
    if (ndeps) memcpy(n->deps, deps, ndeps * sizeof *deps);
    if (g->h) n->h = emu_handle_new(K_NODE, n, g->h->device);
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 8;
        g->nodes = emu_xrealloc(g->nodes, g->cap * sizeof *g->nodes);
    }
    g->nodes[g->n++] = n;
    return n;
}

static void uref_add(struct emu_graph *g, struct emu_uobj *o, unsigned count) {
    for (size_t i = 0; i < g->nurefs; i++) {
        if (g->urefs[i].o == o) {
            g->urefs[i].count += count;
            return;
        }
    }
    g->urefs = emu_xrealloc(g->urefs, (g->nurefs + 1) * sizeof *g->urefs);
    g->urefs[g->nurefs++] = (struct emu_uref){o, count};
}

struct emu_graph *emu_graph_clone(struct emu_graph *g, int registered) {
    struct emu_graph *c = graph_new(registered, g->h ? g->h->device : emu_self()->device);
    for (size_t i = 0; i < g->n; i++) {
        struct emu_work w;
        emu_work_copy(&w, &g->nodes[i]->w);
        graph_add(c, &w, g->nodes[i]->deps, g->nodes[i]->ndeps);
    }
    for (size_t i = 0; i < g->nurefs; i++) {
        g->urefs[i].o->refs += g->urefs[i].count;
        uref_add(c, g->urefs[i].o, g->urefs[i].count);
    }
    return c;
}

static void release_urefs(struct emu_graph *g) {
    struct emu_uref *refs = g->urefs;
    size_t n = g->nurefs;
    g->urefs = NULL;
    g->nurefs = 0;
    for (size_t i = 0; i < n; i++) emu_uobj_release(refs[i].o, refs[i].count);
    free(refs);
}

void emu_graph_release(struct emu_graph *g) {
    for (size_t i = 0; i < g->n; i++) {
        emu_work_drop(&g->nodes[i]->w);
        free(g->nodes[i]->deps);
        free(g->nodes[i]);
    }
    free(g->nodes);
    release_urefs(g);
    free(g);
}

/* A registered graph's handles stay recognisable after destruction: only its contents go. */
static void graph_destroy(struct emu_graph *g) {
    g->h->alive = 0;
    for (size_t i = 0; i < g->n; i++) {
        emu_work_drop(&g->nodes[i]->w);
        if (g->nodes[i]->h) g->nodes[i]->h->alive = 0;
    }
    release_urefs(g);
}

int emu_graph_has_kernels(struct emu_graph *g) {
    for (size_t i = 0; i < g->n; i++) {
        struct emu_work *w = &g->nodes[i]->w;
        if (w->type == W_KERNEL) return 1;
        if (w->type == W_CHILD && emu_graph_has_kernels(w->u.graph.g)) return 1;
    }
    return 0;
}

/* ---- capture ---- */

struct emu_node *emu_capture_add(struct emu_stream *s, struct emu_work *w) {
    struct emu_capture *c = s->cap;
    size_t *deps = emu_xmalloc((s->ncap_deps ? s->ncap_deps : 1) * sizeof *deps);
    for (size_t i = 0; i < s->ncap_deps; i++) deps[i] = s->cap_deps[i]->index;
    struct emu_node *n = graph_add(c->g, w, deps, s->ncap_deps);
    free(deps);
    s->cap_deps = emu_xrealloc(s->cap_deps, sizeof *s->cap_deps);
    s->cap_deps[0] = n;
    s->ncap_deps = 1;
    return n;
}

void emu_capture_invalidate(struct emu_capture *c, cudaError_t why) {
    if (c->invalidated) return;
    c->invalidated = 1;
    c->why = why;
}

cudaError_t emu_capture_check_unsafe(const char *op) {
    (void)op;
    struct emu_thread *t = emu_self();
    if (t->capture_mode == cudaStreamCaptureModeRelaxed) return cudaSuccess;
    int forbidden = 0;
    for (size_t i = 0; i < ncaptures; i++) {
        struct emu_capture *c = captures[i];
        if (c->mode == cudaStreamCaptureModeRelaxed) continue;
        if (c->thread == t->serial ||
            (t->capture_mode == cudaStreamCaptureModeGlobal && c->mode == cudaStreamCaptureModeGlobal)) {
            emu_capture_invalidate(c, cudaErrorStreamCaptureUnsupported);
            forbidden = 1;
        }
    }
    return forbidden ? cudaErrorStreamCaptureUnsupported : cudaSuccess;
}

static struct emu_node *node_of(const char *op, cudaGraphNode_t h, struct emu_graph *g) {
    struct emu_node *n = emu_handle_get(op, (uintptr_t)h, K_NODE);
    return n && n->g == g ? n : NULL;
}

static cudaError_t begin_capture(cudaStream_t stream, struct emu_graph *into,
                                 const cudaGraphNode_t *deps, size_t ndeps, int mode,
                                 const char *op) {
    cudaError_t e;
    struct emu_stream *s = emu_stream_resolve(op, stream, &e);
    if (!s) return e;
    if (mode != cudaStreamCaptureModeGlobal && mode != cudaStreamCaptureModeThreadLocal &&
        mode != cudaStreamCaptureModeRelaxed)
        return cudaErrorInvalidValue;
    if (s->kind == ST_LEGACY) return cudaErrorStreamCaptureUnsupported;
    if (s->cap) return cudaErrorIllegalState;
    if (ndeps && !deps) return cudaErrorInvalidValue;
    struct emu_node **initial = emu_xmalloc((ndeps ? ndeps : 1) * sizeof *initial);
    for (size_t i = 0; i < ndeps; i++) {
        initial[i] = into ? node_of(op, deps[i], into) : NULL;
        if (!initial[i]) {
            free(initial);
            return cudaErrorInvalidValue;
        }
    }
    struct emu_capture *c = emu_xcalloc(1, sizeof *c);
    c->id = ++next_capture_id;
    c->mode = mode;
    c->thread = emu_self()->serial;
    c->device = s->device;
    c->origin = s;
    c->made_graph = into == NULL;
    c->g = into ? into : graph_new(1, s->device);
    c->streams = emu_xmalloc(sizeof *c->streams);
    c->streams[0] = s;
    c->nstreams = 1;
    captures = emu_xrealloc(captures, (ncaptures + 1) * sizeof *captures);
    captures[ncaptures++] = c;
    s->cap = c;
    free(s->cap_deps);
    s->cap_deps = initial;
    s->ncap_deps = ndeps;
    return cudaSuccess;
}

static cudaError_t cudaStreamBeginCapture_impl(cudaStream_t stream, enum cudaStreamCaptureMode mode) {
    return begin_capture(stream, NULL, NULL, 0, mode, "cudaStreamBeginCapture");
}
EMU_API(cudaStreamBeginCapture, (cudaStream_t stream, enum cudaStreamCaptureMode mode),
        (stream, mode))

static cudaError_t cudaStreamBeginCaptureToGraph_impl(cudaStream_t stream, cudaGraph_t graph,
                                                      const cudaGraphNode_t *dependencies,
                                                      const cudaGraphEdgeData *dependencyData,
                                                      size_t numDependencies,
                                                      enum cudaStreamCaptureMode mode) {
    (void)dependencyData;
    struct emu_graph *g =
        emu_handle_get("cudaStreamBeginCaptureToGraph", (uintptr_t)graph, K_GRAPH);
    if (!g) return cudaErrorInvalidValue;
    return begin_capture(stream, g, dependencies, numDependencies, mode,
                         "cudaStreamBeginCaptureToGraph");
}
EMU_API(cudaStreamBeginCaptureToGraph,
        (cudaStream_t stream, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
         const cudaGraphEdgeData *dependencyData, size_t numDependencies,
         enum cudaStreamCaptureMode mode),
        (stream, graph, dependencies, dependencyData, numDependencies, mode))

/* Whether every last node of every joined stream is the origin's last node or one of its
 * dependencies. */
static int joined(struct emu_capture *c) {
    struct emu_graph *g = c->g;
    char *mark = emu_xcalloc(g->n ? g->n : 1, 1);
    size_t *stack = emu_xmalloc((g->n ? g->n : 1) * sizeof *stack);
    size_t top = 0;
    for (size_t i = 0; i < c->origin->ncap_deps; i++) {
        size_t k = c->origin->cap_deps[i]->index;
        if (!mark[k]) {
            mark[k] = 1;
            stack[top++] = k;
        }
    }
    while (top) {
        struct emu_node *n = g->nodes[stack[--top]];
        for (size_t i = 0; i < n->ndeps; i++) {
            if (!mark[n->deps[i]]) {
                mark[n->deps[i]] = 1;
                stack[top++] = n->deps[i];
            }
        }
    }
    int ok = 1;
    for (size_t i = 0; i < c->nstreams && ok; i++)
        for (size_t j = 0; j < c->streams[i]->ncap_deps && ok; j++)
            ok = mark[c->streams[i]->cap_deps[j]->index];
    free(stack);
    free(mark);
    return ok;
}

static void end(struct emu_capture *c) {
    c->ended = 1;
    for (size_t i = 0; i < c->nstreams; i++) {
        struct emu_stream *s = c->streams[i];
        s->cap = NULL;
        free(s->cap_deps);
        s->cap_deps = NULL;
        s->ncap_deps = 0;
    }
    for (size_t i = 0; i < ncaptures; i++) {
        if (captures[i] == c) {
            captures[i] = captures[--ncaptures];
            break;
        }
    }
}

static cudaError_t cudaStreamEndCapture_impl(cudaStream_t stream, cudaGraph_t *pGraph) {
    if (!pGraph) return cudaErrorInvalidValue;
    cudaError_t e;
    struct emu_stream *s = emu_stream_resolve("cudaStreamEndCapture", stream, &e);
    if (!s) return e;
    struct emu_capture *c = s->cap;
    if (!c) return cudaErrorIllegalState;
    if (c->origin != s) {
        emu_capture_invalidate(c, cudaErrorStreamCaptureUnmatched);
        return cudaErrorStreamCaptureUnmatched;
    }
    if (c->mode != cudaStreamCaptureModeRelaxed && c->thread != emu_self()->serial)
        return cudaErrorStreamCaptureWrongThread;
    cudaError_t result = cudaSuccess;
    if (c->invalidated)
        result = cudaErrorStreamCaptureInvalidated;
    else if (!joined(c))
        result = cudaErrorStreamCaptureUnjoined;
    end(c);
    if (result != cudaSuccess) {
        if (c->made_graph) graph_destroy(c->g);
        *pGraph = NULL;
        return result;
    }
    *pGraph = (cudaGraph_t)c->g->h->value;
    return cudaSuccess;
}
EMU_API(cudaStreamEndCapture, (cudaStream_t stream, cudaGraph_t *pGraph), (stream, pGraph))

static int legacy_implicit(struct emu_stream *s) {
    if (s->kind != ST_LEGACY) return 0;
    for (size_t i = 0; i < emu_nstreams; i++) {
        struct emu_stream *t = emu_streams[i];
        if (t->cap && t->device == s->device && t->kind != ST_LEGACY &&
            !(t->flags & cudaStreamNonBlocking))
            return 1;
    }
    return 0;
}

static cudaError_t cudaStreamIsCapturing_impl(cudaStream_t stream,
                                              enum cudaStreamCaptureStatus *pCaptureStatus) {
    if (!pCaptureStatus) return cudaErrorInvalidValue;
    cudaError_t e;
    struct emu_stream *s = emu_stream_resolve("cudaStreamIsCapturing", stream, &e);
    if (!s) return e;
    if (legacy_implicit(s)) return cudaErrorStreamCaptureImplicit;
    *pCaptureStatus = !s->cap               ? cudaStreamCaptureStatusNone
                      : s->cap->invalidated ? cudaStreamCaptureStatusInvalidated
                                            : cudaStreamCaptureStatusActive;
    return cudaSuccess;
}
EMU_API(cudaStreamIsCapturing, (cudaStream_t stream, enum cudaStreamCaptureStatus *pCaptureStatus),
        (stream, pCaptureStatus))

static cudaError_t cudaStreamGetCaptureInfo_impl(cudaStream_t stream,
                                                 enum cudaStreamCaptureStatus *status_out,
                                                 unsigned long long *id_out,
                                                 cudaGraph_t *graph_out,
                                                 const cudaGraphNode_t **dependencies_out,
                                                 const cudaGraphEdgeData **edgeData_out,
                                                 size_t *numDependencies_out) {
    if (!status_out) return cudaErrorInvalidValue;
    cudaError_t e;
    struct emu_stream *s = emu_stream_resolve("cudaStreamGetCaptureInfo", stream, &e);
    if (!s) return e;
    if (legacy_implicit(s)) return cudaErrorStreamCaptureImplicit;
    if (!s->cap) {
        *status_out = cudaStreamCaptureStatusNone;
        return cudaSuccess;
    }
    *status_out = s->cap->invalidated ? cudaStreamCaptureStatusInvalidated
                                      : cudaStreamCaptureStatusActive;
    if (id_out) *id_out = s->cap->id;
    if (graph_out) *graph_out = (cudaGraph_t)s->cap->g->h->value;
    size_t n = s->ncap_deps;
    s->cap_dep_handles = emu_xrealloc(s->cap_dep_handles, (n ? n : 1) * sizeof(cudaGraphNode_t));
    s->cap_edge_data = emu_xrealloc(s->cap_edge_data, (n ? n : 1) * sizeof(cudaGraphEdgeData));
    memset(s->cap_edge_data, 0, (n ? n : 1) * sizeof(cudaGraphEdgeData));
    for (size_t i = 0; i < n; i++)
        s->cap_dep_handles[i] = (cudaGraphNode_t)s->cap_deps[i]->h->value;
    if (dependencies_out) *dependencies_out = n ? s->cap_dep_handles : NULL;
    if (edgeData_out) *edgeData_out = n ? s->cap_edge_data : NULL;
    if (numDependencies_out) *numDependencies_out = n;
    return cudaSuccess;
}
EMU_API(cudaStreamGetCaptureInfo,
        (cudaStream_t stream, enum cudaStreamCaptureStatus *captureStatus_out,
         unsigned long long *id_out, cudaGraph_t *graph_out,
         const cudaGraphNode_t **dependencies_out, const cudaGraphEdgeData **edgeData_out,
         size_t *numDependencies_out),
        (stream, captureStatus_out, id_out, graph_out, dependencies_out, edgeData_out,
         numDependencies_out))

static cudaError_t cudaStreamUpdateCaptureDependencies_impl(cudaStream_t stream,
                                                            cudaGraphNode_t *dependencies,
                                                            const cudaGraphEdgeData *dependencyData,
                                                            size_t numDependencies,
                                                            unsigned int flags) {
    (void)dependencyData;
    cudaError_t e;
    struct emu_stream *s = emu_stream_resolve("cudaStreamUpdateCaptureDependencies", stream, &e);
    if (!s) return e;
    if (!s->cap) return cudaErrorIllegalState;
    if (flags != cudaStreamAddCaptureDependencies && flags != cudaStreamSetCaptureDependencies)
        return cudaErrorInvalidValue;
    if (numDependencies && !dependencies) return cudaErrorInvalidValue;
    struct emu_node **nodes = emu_xmalloc((numDependencies ? numDependencies : 1) * sizeof *nodes);
    for (size_t i = 0; i < numDependencies; i++) {
        nodes[i] = node_of("cudaStreamUpdateCaptureDependencies", dependencies[i], s->cap->g);
        if (!nodes[i]) {
            free(nodes);
            return cudaErrorInvalidValue;
        }
    }
    if (flags == cudaStreamSetCaptureDependencies) s->ncap_deps = 0;
    s->cap_deps = emu_xrealloc(s->cap_deps, (s->ncap_deps + numDependencies + 1) * sizeof *s->cap_deps);
    for (size_t i = 0; i < numDependencies; i++) s->cap_deps[s->ncap_deps++] = nodes[i];
    free(nodes);
    return cudaSuccess;
}
EMU_API(cudaStreamUpdateCaptureDependencies,
        (cudaStream_t stream, cudaGraphNode_t *dependencies,
         const cudaGraphEdgeData *dependencyData, size_t numDependencies, unsigned int flags),
        (stream, dependencies, dependencyData, numDependencies, flags))

/* ---- explicit graphs ---- */

static cudaError_t cudaGraphCreate_impl(cudaGraph_t *pGraph, unsigned int flags) {
    if (!pGraph || flags != 0) return cudaErrorInvalidValue;
    struct emu_graph *g = graph_new(1, emu_self()->device);
    *pGraph = (cudaGraph_t)g->h->value;
    return cudaSuccess;
}
EMU_API(cudaGraphCreate, (cudaGraph_t * pGraph, unsigned int flags), (pGraph, flags))

static cudaError_t cudaGraphDestroy_impl(cudaGraph_t graph) {
    struct emu_graph *g = emu_handle_take("cudaGraphDestroy", (uintptr_t)graph, K_GRAPH);
    if (!g) return cudaErrorInvalidValue;
    for (size_t i = 0; i < ncaptures; i++)
        if (captures[i]->g == g) return cudaErrorIllegalState;
    graph_destroy(g);
    return cudaSuccess;
}
EMU_API(cudaGraphDestroy, (cudaGraph_t graph), (graph))

static cudaError_t cudaGraphClone_impl(cudaGraph_t *pGraphClone, cudaGraph_t originalGraph) {
    if (!pGraphClone) return cudaErrorInvalidValue;
    struct emu_graph *g = emu_handle_get("cudaGraphClone", (uintptr_t)originalGraph, K_GRAPH);
    if (!g) return cudaErrorInvalidValue;
    struct emu_graph *c = emu_graph_clone(g, 1);
    *pGraphClone = (cudaGraph_t)c->h->value;
    return cudaSuccess;
}
EMU_API(cudaGraphClone, (cudaGraph_t * pGraphClone, cudaGraph_t originalGraph),
        (pGraphClone, originalGraph))

static cudaError_t list_nodes(cudaGraph_t graph, cudaGraphNode_t *out, size_t *count, int roots,
                              const char *op) {
    if (!count) return cudaErrorInvalidValue;
    struct emu_graph *g = emu_handle_get(op, (uintptr_t)graph, K_GRAPH);
    if (!g) return cudaErrorInvalidValue;
    size_t total = 0;
    for (size_t i = 0; i < g->n; i++) {
        if (roots && g->nodes[i]->ndeps) continue;
        if (out && total < *count) out[total] = (cudaGraphNode_t)g->nodes[i]->h->value;
        total++;
    }
    if (out)
        for (size_t i = total; i < *count; i++) out[i] = NULL;
    *count = total;
    return cudaSuccess;
}

static cudaError_t cudaGraphGetNodes_impl(cudaGraph_t graph, cudaGraphNode_t *nodes,
                                          size_t *numNodes) {
    return list_nodes(graph, nodes, numNodes, 0, "cudaGraphGetNodes");
}
EMU_API(cudaGraphGetNodes, (cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes),
        (graph, nodes, numNodes))

static cudaError_t cudaGraphGetRootNodes_impl(cudaGraph_t graph, cudaGraphNode_t *pRootNodes,
                                              size_t *pNumRootNodes) {
    return list_nodes(graph, pRootNodes, pNumRootNodes, 1, "cudaGraphGetRootNodes");
}
EMU_API(cudaGraphGetRootNodes,
        (cudaGraph_t graph, cudaGraphNode_t *pRootNodes, size_t *pNumRootNodes),
        (graph, pRootNodes, pNumRootNodes))

static cudaError_t cudaGraphGetEdges_impl(cudaGraph_t graph, cudaGraphNode_t *from,
                                          cudaGraphNode_t *to, cudaGraphEdgeData *edgeData,
                                          size_t *numEdges) {
    if (!numEdges || (from == NULL) != (to == NULL)) return cudaErrorInvalidValue;
    struct emu_graph *g = emu_handle_get("cudaGraphGetEdges", (uintptr_t)graph, K_GRAPH);
    if (!g) return cudaErrorInvalidValue;
    size_t total = 0;
    for (size_t i = 0; i < g->n; i++) {
        for (size_t d = 0; d < g->nodes[i]->ndeps; d++) {
            if (from && total < *numEdges) {
                from[total] = (cudaGraphNode_t)g->nodes[g->nodes[i]->deps[d]]->h->value;
                to[total] = (cudaGraphNode_t)g->nodes[i]->h->value;
                if (edgeData) memset(&edgeData[total], 0, sizeof *edgeData);
            }
            total++;
        }
    }
    if (from)
        for (size_t i = total; i < *numEdges; i++) from[i] = to[i] = NULL;
    *numEdges = total;
    return cudaSuccess;
}
EMU_API(cudaGraphGetEdges,
        (cudaGraph_t graph, cudaGraphNode_t *from, cudaGraphNode_t *to,
         cudaGraphEdgeData *edgeData, size_t *numEdges),
        (graph, from, to, edgeData, numEdges))

static cudaError_t cudaGraphNodeGetType_impl(cudaGraphNode_t node, enum cudaGraphNodeType *pType) {
    struct emu_node *n = emu_handle_get("cudaGraphNodeGetType", (uintptr_t)node, K_NODE);
    if (!n || !pType) return cudaErrorInvalidValue;
    switch (n->w.type) {
    case W_KERNEL: *pType = cudaGraphNodeTypeKernel; break;
    case W_COPY: *pType = cudaGraphNodeTypeMemcpy; break;
    case W_SET: *pType = cudaGraphNodeTypeMemset; break;
    case W_HOST: *pType = cudaGraphNodeTypeHost; break;
    case W_CHILD: *pType = cudaGraphNodeTypeGraph; break;
    case W_EVENT_RECORD: *pType = cudaGraphNodeTypeEventRecord; break;
    case W_EVENT_WAIT: *pType = cudaGraphNodeTypeWaitEvent; break;
    case W_MEM_ALLOC: *pType = cudaGraphNodeTypeMemAlloc; break;
    case W_MEM_FREE: *pType = cudaGraphNodeTypeMemFree; break;
    default: *pType = cudaGraphNodeTypeEmpty; break;
    }
    return cudaSuccess;
}
EMU_API(cudaGraphNodeGetType, (cudaGraphNode_t node, enum cudaGraphNodeType *pType), (node, pType))

static cudaError_t cudaGraphHostNodeSetParams_impl(cudaGraphNode_t node,
                                                   const struct cudaHostNodeParams *p) {
    struct emu_node *n = emu_handle_get("cudaGraphHostNodeSetParams", (uintptr_t)node, K_NODE);
    if (!n || n->w.type != W_HOST || !p || !p->fn) return cudaErrorInvalidValue;
    n->w.u.host.fn = p->fn;
    n->w.u.host.user = p->userData;
    return cudaSuccess;
}
EMU_API(cudaGraphHostNodeSetParams, (cudaGraphNode_t node, const struct cudaHostNodeParams *p),
        (node, p))

/* Adds w to the graph after `deps`; takes w's contents (dropped on failure). */
static cudaError_t add_node(cudaGraphNode_t *out, cudaGraph_t graph, const cudaGraphNode_t *deps,
                            size_t ndeps, struct emu_work *w, const char *op) {
    struct emu_graph *g = out ? emu_handle_get(op, (uintptr_t)graph, K_GRAPH) : NULL;
    if (!g || (ndeps && !deps)) {
        emu_work_drop(w);
        return cudaErrorInvalidValue;
    }
    size_t *idx = emu_xmalloc((ndeps ? ndeps : 1) * sizeof *idx);
    for (size_t i = 0; i < ndeps; i++) {
        struct emu_node *n = node_of(op, deps[i], g);
        int dup = 0;
        for (size_t j = 0; n && j < i; j++) dup |= idx[j] == n->index;
        if (!n || dup) {
            free(idx);
            emu_work_drop(w);
            return cudaErrorInvalidValue;
        }
        idx[i] = n->index;
    }
    struct emu_node *n = graph_add(g, w, idx, ndeps);
    free(idx);
    *out = (cudaGraphNode_t)n->h->value;
    return cudaSuccess;
}

static cudaError_t cudaGraphAddEmptyNode_impl(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                              const cudaGraphNode_t *pDependencies,
                                              size_t numDependencies) {
    struct emu_work w = {.type = W_EMPTY};
    return add_node(pGraphNode, graph, pDependencies, numDependencies, &w, "cudaGraphAddEmptyNode");
}
EMU_API(cudaGraphAddEmptyNode,
        (cudaGraphNode_t * pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies,
         size_t numDependencies),
        (pGraphNode, graph, pDependencies, numDependencies))

static cudaError_t cudaGraphAddHostNode_impl(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                             const cudaGraphNode_t *pDependencies,
                                             size_t numDependencies,
                                             const struct cudaHostNodeParams *p) {
    if (!p || !p->fn) return cudaErrorInvalidValue;
    struct emu_work w = {.type = W_HOST};
    w.u.host.fn = p->fn;
    w.u.host.user = p->userData;
    return add_node(pGraphNode, graph, pDependencies, numDependencies, &w, "cudaGraphAddHostNode");
}
EMU_API(cudaGraphAddHostNode,
        (cudaGraphNode_t * pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies,
         size_t numDependencies, const struct cudaHostNodeParams *pNodeParams),
        (pGraphNode, graph, pDependencies, numDependencies, pNodeParams))

static cudaError_t cudaGraphAddChildGraphNode_impl(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                   const cudaGraphNode_t *pDependencies,
                                                   size_t numDependencies,
                                                   cudaGraph_t childGraph) {
    struct emu_graph *child =
        emu_handle_get("cudaGraphAddChildGraphNode", (uintptr_t)childGraph, K_GRAPH);
    if (!child || (uintptr_t)childGraph == (uintptr_t)graph) return cudaErrorInvalidValue;
    struct emu_work w = {.type = W_CHILD};
    w.u.graph.g = emu_graph_clone(child, 0); /* holds the child's user objects */
    return add_node(pGraphNode, graph, pDependencies, numDependencies, &w,
                    "cudaGraphAddChildGraphNode");
}
EMU_API(cudaGraphAddChildGraphNode,
        (cudaGraphNode_t * pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies,
         size_t numDependencies, cudaGraph_t childGraph),
        (pGraphNode, graph, pDependencies, numDependencies, childGraph))

static cudaError_t cudaGraphAddMemsetNode_impl(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                               const cudaGraphNode_t *pDependencies,
                                               size_t numDependencies,
                                               const struct cudaMemsetParams *p) {
    if (!p || !p->dst || (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4) ||
        p->height == 0 || (p->height > 1 && p->pitch < p->width * p->elementSize))
        return cudaErrorInvalidValue;
    struct emu_work w = {.type = W_SET};
    w.u.set.dst = p->dst;
    w.u.set.pitch = p->height > 1 ? p->pitch : p->width * p->elementSize;
    w.u.set.value = p->value;
    w.u.set.elem = p->elementSize;
    w.u.set.width = p->width;
    w.u.set.height = p->height;
    return add_node(pGraphNode, graph, pDependencies, numDependencies, &w,
                    "cudaGraphAddMemsetNode");
}
EMU_API(cudaGraphAddMemsetNode,
        (cudaGraphNode_t * pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies,
         size_t numDependencies, const struct cudaMemsetParams *pMemsetParams),
        (pGraphNode, graph, pDependencies, numDependencies, pMemsetParams))

static cudaError_t cudaGraphMemsetNodeSetParams_impl(cudaGraphNode_t node,
                                                     const struct cudaMemsetParams *p) {
    struct emu_node *n = emu_handle_get("cudaGraphMemsetNodeSetParams", (uintptr_t)node, K_NODE);
    if (!n || n->w.type != W_SET || !p || !p->dst ||
        (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4) || p->height == 0 ||
        (p->height > 1 && p->pitch < p->width * p->elementSize))
        return cudaErrorInvalidValue;
    n->w.u.set.dst = p->dst;
    n->w.u.set.pitch = p->height > 1 ? p->pitch : p->width * p->elementSize;
    n->w.u.set.value = p->value;
    n->w.u.set.elem = p->elementSize;
    n->w.u.set.width = p->width;
    n->w.u.set.height = p->height;
    return cudaSuccess;
}
EMU_API(cudaGraphMemsetNodeSetParams, (cudaGraphNode_t node, const struct cudaMemsetParams *p),
        (node, p))

static cudaError_t cudaGraphMemcpyNodeSetParams1D_impl(cudaGraphNode_t node, void *dst,
                                                       const void *src, size_t count,
                                                       enum cudaMemcpyKind kind) {
    struct emu_node *n = emu_handle_get("cudaGraphMemcpyNodeSetParams1D", (uintptr_t)node, K_NODE);
    if (!n || n->w.type != W_COPY || !dst || !src) return cudaErrorInvalidValue;
    if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault) return cudaErrorInvalidMemcpyDirection;
    n->w.u.copy.dst = dst;
    n->w.u.copy.src = src;
    n->w.u.copy.n = count;
    n->w.u.copy.kind = kind;
    return cudaSuccess;
}
EMU_API(cudaGraphMemcpyNodeSetParams1D,
        (cudaGraphNode_t node, void *dst, const void *src, size_t count, enum cudaMemcpyKind kind),
        (node, dst, src, count, kind))

static cudaError_t cudaGraphKernelNodeSetParams_impl(cudaGraphNode_t node,
                                                     const struct cudaKernelNodeParams *p) {
    const char *op = "cudaGraphKernelNodeSetParams";
    struct emu_node *n = emu_handle_get(op, (uintptr_t)node, K_NODE);
    if (!n || n->w.type != W_KERNEL || !p || p->extra) return cudaErrorInvalidValue;
    struct emu_kernel *k = emu_kernel_get(op, p->func);
    if (!k) return cudaErrorInvalidDeviceFunction;
    struct emu_work nw = {.type = W_KERNEL};
    nw.u.kernel.k = k;
    nw.u.kernel.grid = p->gridDim;
    nw.u.kernel.block = p->blockDim;
    nw.u.kernel.smem = p->sharedMemBytes;
    cudaError_t e = emu_kernel_args(k, p->kernelParams, &nw);
    if (e != cudaSuccess) return e;
    emu_work_drop(&n->w);
    n->w = nw;
    return cudaSuccess;
}
EMU_API(cudaGraphKernelNodeSetParams,
        (cudaGraphNode_t node, const struct cudaKernelNodeParams *p), (node, p))

/* Not emulated (reported as unsupported, never faked): removing a node (nodes are kept in
 * dependency order by index) and conditional nodes (no device code sets a condition here). */
static cudaError_t cudaGraphDestroyNode_impl(cudaGraphNode_t node) {
    if (!emu_handle_get("cudaGraphDestroyNode", (uintptr_t)node, K_NODE))
        return cudaErrorInvalidValue;
    return cudaErrorNotSupported;
}
EMU_API(cudaGraphDestroyNode, (cudaGraphNode_t node), (node))

static cudaError_t cudaGraphConditionalHandleCreate_impl(cudaGraphConditionalHandle *pHandle_out,
                                                         cudaGraph_t graph,
                                                         unsigned int defaultLaunchValue,
                                                         unsigned int flags) {
    (void)defaultLaunchValue;
    (void)flags;
    if (!pHandle_out || !emu_handle_get("cudaGraphConditionalHandleCreate", (uintptr_t)graph, K_GRAPH))
        return cudaErrorInvalidValue;
    return cudaErrorNotSupported;
}
EMU_API(cudaGraphConditionalHandleCreate,
        (cudaGraphConditionalHandle * pHandle_out, cudaGraph_t graph,
         unsigned int defaultLaunchValue, unsigned int flags),
        (pHandle_out, graph, defaultLaunchValue, flags))

static cudaError_t cudaGraphAddMemcpyNode1D_impl(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                 const cudaGraphNode_t *pDependencies,
                                                 size_t numDependencies, void *dst,
                                                 const void *src, size_t count,
                                                 enum cudaMemcpyKind kind) {
    if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault) return cudaErrorInvalidMemcpyDirection;
    if (!dst || !src) return cudaErrorInvalidValue;
    struct emu_work w = {.type = W_COPY};
    w.u.copy.dst = dst;
    w.u.copy.src = src;
    w.u.copy.n = count;
    w.u.copy.kind = kind;
    return add_node(pGraphNode, graph, pDependencies, numDependencies, &w,
                    "cudaGraphAddMemcpyNode1D");
}
EMU_API(cudaGraphAddMemcpyNode1D,
        (cudaGraphNode_t * pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies,
         size_t numDependencies, void *dst, const void *src, size_t count,
         enum cudaMemcpyKind kind),
        (pGraphNode, graph, pDependencies, numDependencies, dst, src, count, kind))

/* Only copies between pointers of one row and one slice (a 1-D copy written in 3-D form). */
static cudaError_t cudaGraphAddMemcpyNode_impl(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                               const cudaGraphNode_t *pDependencies,
                                               size_t numDependencies,
                                               const struct cudaMemcpy3DParms *p) {
    if (!p) return cudaErrorInvalidValue;
    if (p->srcArray || p->dstArray || p->extent.height > 1 || p->extent.depth > 1 ||
        p->srcPos.y || p->srcPos.z || p->dstPos.y || p->dstPos.z)
        return cudaErrorNotSupported;
    return cudaGraphAddMemcpyNode1D_impl(pGraphNode, graph, pDependencies, numDependencies,
                                         (char *)p->dstPtr.ptr + p->dstPos.x,
                                         (const char *)p->srcPtr.ptr + p->srcPos.x,
                                         p->extent.width, p->kind);
}
EMU_API(cudaGraphAddMemcpyNode,
        (cudaGraphNode_t * pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies,
         size_t numDependencies, const struct cudaMemcpy3DParms *pCopyParams),
        (pGraphNode, graph, pDependencies, numDependencies, pCopyParams))

static cudaError_t cudaGraphAddKernelNode_impl(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                               const cudaGraphNode_t *pDependencies,
                                               size_t numDependencies,
                                               const struct cudaKernelNodeParams *p) {
    if (!p || p->extra) return cudaErrorInvalidValue;
    struct emu_kernel *k = emu_kernel_get("cudaGraphAddKernelNode", p->func);
    if (!k) return cudaErrorInvalidDeviceFunction;
    struct emu_work w = {.type = W_KERNEL};
    w.u.kernel.k = k;
    w.u.kernel.grid = p->gridDim;
    w.u.kernel.block = p->blockDim;
    w.u.kernel.smem = p->sharedMemBytes;
    cudaError_t e = emu_kernel_args(k, p->kernelParams, &w);
    if (e != cudaSuccess) return e;
    return add_node(pGraphNode, graph, pDependencies, numDependencies, &w,
                    "cudaGraphAddKernelNode");
}
EMU_API(cudaGraphAddKernelNode,
        (cudaGraphNode_t * pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies,
         size_t numDependencies, const struct cudaKernelNodeParams *pNodeParams),
        (pGraphNode, graph, pDependencies, numDependencies, pNodeParams))

static cudaError_t event_node(cudaGraphNode_t *out, cudaGraph_t graph, const cudaGraphNode_t *deps,
                              size_t ndeps, cudaEvent_t event, enum emu_work_type type,
                              const char *op) {
    struct emu_event *ev = emu_handle_get(op, (uintptr_t)event, K_EVENT);
    if (!ev) return cudaErrorInvalidResourceHandle;
    struct emu_work w = {.type = type};
    w.u.event.ev = ev;
    return add_node(out, graph, deps, ndeps, &w, op);
}

static cudaError_t cudaGraphAddEventRecordNode_impl(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                    const cudaGraphNode_t *pDependencies,
                                                    size_t numDependencies, cudaEvent_t event) {
    return event_node(pGraphNode, graph, pDependencies, numDependencies, event, W_EVENT_RECORD,
                      "cudaGraphAddEventRecordNode");
}
EMU_API(cudaGraphAddEventRecordNode,
        (cudaGraphNode_t * pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies,
         size_t numDependencies, cudaEvent_t event),
        (pGraphNode, graph, pDependencies, numDependencies, event))

static cudaError_t cudaGraphAddEventWaitNode_impl(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                  const cudaGraphNode_t *pDependencies,
                                                  size_t numDependencies, cudaEvent_t event) {
    return event_node(pGraphNode, graph, pDependencies, numDependencies, event, W_EVENT_WAIT,
                      "cudaGraphAddEventWaitNode");
}
EMU_API(cudaGraphAddEventWaitNode,
        (cudaGraphNode_t * pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies,
         size_t numDependencies, cudaEvent_t event),
        (pGraphNode, graph, pDependencies, numDependencies, event))

/* ---- executable graphs ---- */

struct emu_exec {
    struct emu_handle *h;
    struct emu_graph *g;         /* private copy */
    struct emu_graph *source;    /* the graph it was instantiated from */
    unsigned long long flags;
};

static cudaError_t instantiate(cudaGraphExec_t *out, cudaGraph_t graph, unsigned long long flags,
                               const char *op) {
    if (!out) return cudaErrorInvalidValue;
    struct emu_graph *g = emu_handle_get(op, (uintptr_t)graph, K_GRAPH);
    if (!g) return cudaErrorInvalidValue;
    if (flags & ~(unsigned long long)(cudaGraphInstantiateFlagAutoFreeOnLaunch |
                                      cudaGraphInstantiateFlagUpload |
                                      cudaGraphInstantiateFlagDeviceLaunch |
                                      cudaGraphInstantiateFlagUseNodePriority))
        return cudaErrorInvalidValue;
    struct emu_exec *x = emu_xcalloc(1, sizeof *x);
    x->g = emu_graph_clone(g, 0);
    x->source = g;
    x->flags = flags;
    x->h = emu_handle_new(K_EXEC, x, emu_self()->device);
    *out = (cudaGraphExec_t)x->h->value;
    return cudaSuccess;
}

static cudaError_t cudaGraphInstantiate_impl(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                             unsigned long long flags) {
    return instantiate(pGraphExec, graph, flags, "cudaGraphInstantiate");
}
EMU_API(cudaGraphInstantiate,
        (cudaGraphExec_t * pGraphExec, cudaGraph_t graph, unsigned long long flags),
        (pGraphExec, graph, flags))

static cudaError_t cudaGraphInstantiateWithFlags_impl(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                                      unsigned long long flags) {
    return instantiate(pGraphExec, graph, flags, "cudaGraphInstantiateWithFlags");
}
EMU_API(cudaGraphInstantiateWithFlags,
        (cudaGraphExec_t * pGraphExec, cudaGraph_t graph, unsigned long long flags),
        (pGraphExec, graph, flags))

static cudaError_t cudaGraphExecDestroy_impl(cudaGraphExec_t graphExec) {
    struct emu_exec *x = emu_handle_take("cudaGraphExecDestroy", (uintptr_t)graphExec, K_EXEC);
    if (!x) return cudaErrorInvalidValue;
    x->h->alive = 0;
    emu_graph_release(x->g); /* pending launches run copies of their own */
    x->g = NULL;
    return cudaSuccess;
}
EMU_API(cudaGraphExecDestroy, (cudaGraphExec_t graphExec), (graphExec))

/* Graph allocations still live from an earlier launch: freed with AutoFreeOnLaunch, an error
 * otherwise (as CUDA refuses to relaunch such a graph). */
static int live_graph_allocs(struct emu_graph *g, int auto_free) {
    int live = 0;
    for (size_t i = 0; i < g->n; i++) {
        struct emu_work *w = &g->nodes[i]->w;
        if (w->type == W_CHILD) live |= live_graph_allocs(w->u.graph.g, auto_free);
        if (w->type != W_MEM_ALLOC || w->u.alloc.a->state != S_LIVE) continue;
        if (auto_free)
            emu_alloc_free(w->u.alloc.a, "cudaGraphLaunch (auto free on launch)");
        else
            live = 1;
    }
    return live;
}

static cudaError_t cudaGraphLaunch_impl(cudaGraphExec_t graphExec, cudaStream_t stream) {
    struct emu_exec *x = emu_handle_get("cudaGraphLaunch", (uintptr_t)graphExec, K_EXEC);
    if (!x) return cudaErrorInvalidValue;
    cudaError_t e;
    struct emu_stream *s = emu_stream_resolve("cudaGraphLaunch", stream, &e);
    if (!s) return e;
    if (!s->cap && live_graph_allocs(x->g, (x->flags & cudaGraphInstantiateFlagAutoFreeOnLaunch) != 0))
        return cudaErrorInvalidValue;
    struct emu_work w = {.type = W_GRAPH};
    w.u.graph.g = emu_graph_clone(x->g, 0);
    return emu_submit(s, &w, "cudaGraphLaunch");
}
EMU_API(cudaGraphLaunch, (cudaGraphExec_t graphExec, cudaStream_t stream), (graphExec, stream))

static cudaError_t cudaGraphUpload_impl(cudaGraphExec_t graphExec, cudaStream_t stream) {
    struct emu_exec *x = emu_handle_get("cudaGraphUpload", (uintptr_t)graphExec, K_EXEC);
    if (!x) return cudaErrorInvalidValue;
    cudaError_t e;
    struct emu_stream *s = emu_stream_resolve("cudaGraphUpload", stream, &e);
    return s ? cudaSuccess : e;
}
EMU_API(cudaGraphUpload, (cudaGraphExec_t graphExec, cudaStream_t stream), (graphExec, stream))

static int same_topology(struct emu_graph *a, struct emu_graph *b) {
    if (a->n != b->n) return 0;
    for (size_t i = 0; i < a->n; i++) {
        struct emu_node *x = a->nodes[i], *y = b->nodes[i];
        if (x->w.type != y->w.type || x->ndeps != y->ndeps) return 0;
        if (x->ndeps && memcmp(x->deps, y->deps, x->ndeps * sizeof *x->deps)) return 0;
        if (x->w.type == W_CHILD && !same_topology(x->w.u.graph.g, y->w.u.graph.g)) return 0;
        if (x->w.type == W_MEM_ALLOC && x->w.u.alloc.a != y->w.u.alloc.a) return 0;
        if (x->w.type == W_MEM_FREE && x->w.u.free.ptr != y->w.u.free.ptr) return 0;
    }
    return 1;
}

/* Takes the parameters of every node; user objects stay those of the executable graph. */
static void take_parameters(struct emu_graph *dst, struct emu_graph *src) {
    for (size_t i = 0; i < dst->n; i++) {
        struct emu_work *d = &dst->nodes[i]->w, *s = &src->nodes[i]->w;
        if (d->type == W_CHILD) {
            take_parameters(d->u.graph.g, s->u.graph.g);
            continue;
        }
        emu_work_drop(d);
        emu_work_copy(d, s);
    }
}

static cudaError_t cudaGraphExecUpdate_impl(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                            cudaGraphExecUpdateResultInfo *resultInfo) {
    struct emu_exec *x = emu_handle_get("cudaGraphExecUpdate", (uintptr_t)hGraphExec, K_EXEC);
    struct emu_graph *g = emu_handle_get("cudaGraphExecUpdate", (uintptr_t)hGraph, K_GRAPH);
    if (!x || !g || !resultInfo) return cudaErrorInvalidValue;
    memset(resultInfo, 0, sizeof *resultInfo);
    if (!same_topology(x->g, g)) {
        resultInfo->result = cudaGraphExecUpdateErrorTopologyChanged;
        /* CUDA names a node of the new graph where it can: the first one past the old. */
        if (g->n > x->g->n) resultInfo->errorNode = (cudaGraphNode_t)g->nodes[x->g->n]->h->value;
        return cudaErrorGraphExecUpdateFailure;
    }
    take_parameters(x->g, g);
    resultInfo->result = cudaGraphExecUpdateSuccess;
    return cudaSuccess;
}
EMU_API(cudaGraphExecUpdate,
        (cudaGraphExec_t hGraphExec, cudaGraph_t hGraph, cudaGraphExecUpdateResultInfo *resultInfo),
        (hGraphExec, hGraph, resultInfo))

/* The executable graph's copy of `node`, a node of type `type` of the graph it was made from;
 * NULL (cudaErrorInvalidValue) for a node of another graph, or one added since. */
static struct emu_work *exec_node(const char *op, cudaGraphExec_t exec, cudaGraphNode_t node,
                                  enum emu_work_type type) {
    struct emu_exec *x = emu_handle_get(op, (uintptr_t)exec, K_EXEC);
    if (!x) return NULL;
    struct emu_node *n = node_of(op, node, x->source);
    if (!n || n->index >= x->g->n) return NULL;
    struct emu_work *w = &x->g->nodes[n->index]->w;
    return w->type == type ? w : NULL;
}

static cudaError_t cudaGraphExecKernelNodeSetParams_impl(cudaGraphExec_t hGraphExec,
                                                         cudaGraphNode_t node,
                                                         const struct cudaKernelNodeParams *p) {
    const char *op = "cudaGraphExecKernelNodeSetParams";
    struct emu_work *w = exec_node(op, hGraphExec, node, W_KERNEL);
    if (!w || !p || p->extra) return cudaErrorInvalidValue;
    struct emu_kernel *k = emu_kernel_get(op, p->func);
    if (!k) return cudaErrorInvalidDeviceFunction;
    struct emu_work nw = {.type = W_KERNEL};
    nw.u.kernel.k = k;
    nw.u.kernel.grid = p->gridDim;
    nw.u.kernel.block = p->blockDim;
    nw.u.kernel.smem = p->sharedMemBytes;
    cudaError_t e = emu_kernel_args(k, p->kernelParams, &nw);
    if (e != cudaSuccess) return e;
    emu_work_drop(w);
    *w = nw;
    return cudaSuccess;
}
EMU_API(cudaGraphExecKernelNodeSetParams,
        (cudaGraphExec_t hGraphExec, cudaGraphNode_t node, const struct cudaKernelNodeParams *pNodeParams),
        (hGraphExec, node, pNodeParams))

static cudaError_t cudaGraphExecMemcpyNodeSetParams1D_impl(cudaGraphExec_t hGraphExec,
                                                           cudaGraphNode_t node, void *dst,
                                                           const void *src, size_t count,
                                                           enum cudaMemcpyKind kind) {
    struct emu_work *w = exec_node("cudaGraphExecMemcpyNodeSetParams1D", hGraphExec, node, W_COPY);
    if (!w || !dst || !src) return cudaErrorInvalidValue;
    if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault) return cudaErrorInvalidMemcpyDirection;
    w->u.copy.dst = dst;
    w->u.copy.src = src;
    w->u.copy.n = count;
    w->u.copy.kind = kind;
    return cudaSuccess;
}
static cudaError_t cudaGraphExecHostNodeSetParams_impl(cudaGraphExec_t hGraphExec,
                                                       cudaGraphNode_t node,
                                                       const struct cudaHostNodeParams *p) {
    struct emu_work *w = exec_node("cudaGraphExecHostNodeSetParams", hGraphExec, node, W_HOST);
    if (!w || !p || !p->fn) return cudaErrorInvalidValue;
    w->u.host.fn = p->fn;
    w->u.host.user = p->userData;
    return cudaSuccess;
}
EMU_API(cudaGraphExecHostNodeSetParams,
        (cudaGraphExec_t hGraphExec, cudaGraphNode_t node, const struct cudaHostNodeParams *p),
        (hGraphExec, node, p))

static cudaError_t cudaGraphExecMemsetNodeSetParams_impl(cudaGraphExec_t hGraphExec,
                                                         cudaGraphNode_t node,
                                                         const struct cudaMemsetParams *p) {
    struct emu_work *w = exec_node("cudaGraphExecMemsetNodeSetParams", hGraphExec, node, W_SET);
    if (!w || !p || !p->dst || (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4) ||
        p->height == 0 || (p->height > 1 && p->pitch < p->width * p->elementSize))
        return cudaErrorInvalidValue;
    w->u.set.dst = p->dst;
    w->u.set.pitch = p->height > 1 ? p->pitch : p->width * p->elementSize;
    w->u.set.value = p->value;
    w->u.set.elem = p->elementSize;
    w->u.set.width = p->width;
    w->u.set.height = p->height;
    return cudaSuccess;
}
EMU_API(cudaGraphExecMemsetNodeSetParams,
        (cudaGraphExec_t hGraphExec, cudaGraphNode_t node, const struct cudaMemsetParams *p),
        (hGraphExec, node, p))

static cudaError_t cudaGraphExecChildGraphNodeSetParams_impl(cudaGraphExec_t hGraphExec,
                                                             cudaGraphNode_t node,
                                                             cudaGraph_t childGraph) {
    const char *op = "cudaGraphExecChildGraphNodeSetParams";
    struct emu_work *w = exec_node(op, hGraphExec, node, W_CHILD);
    struct emu_graph *child = emu_handle_get(op, (uintptr_t)childGraph, K_GRAPH);
    if (!w || !child) return cudaErrorInvalidValue;
    if (!same_topology(w->u.graph.g, child)) return cudaErrorGraphExecUpdateFailure;
    take_parameters(w->u.graph.g, child);
    return cudaSuccess;
}
EMU_API(cudaGraphExecChildGraphNodeSetParams,
        (cudaGraphExec_t hGraphExec, cudaGraphNode_t node, cudaGraph_t childGraph),
        (hGraphExec, node, childGraph))

EMU_API(cudaGraphExecMemcpyNodeSetParams1D,
        (cudaGraphExec_t hGraphExec, cudaGraphNode_t node, void *dst, const void *src, size_t count,
         enum cudaMemcpyKind kind),
        (hGraphExec, node, dst, src, count, kind))

static cudaError_t set_event_node(cudaGraphExec_t exec, cudaGraphNode_t node, cudaEvent_t event,
                                  enum emu_work_type type, const char *op) {
    struct emu_work *w = exec_node(op, exec, node, type);
    if (!w) return cudaErrorInvalidValue;
    struct emu_event *ev = emu_handle_get(op, (uintptr_t)event, K_EVENT);
    if (!ev) return cudaErrorInvalidResourceHandle;
    w->u.event.ev = ev;
    return cudaSuccess;
}

static cudaError_t cudaGraphExecEventRecordNodeSetEvent_impl(cudaGraphExec_t hGraphExec,
                                                             cudaGraphNode_t hNode,
                                                             cudaEvent_t event) {
    return set_event_node(hGraphExec, hNode, event, W_EVENT_RECORD,
                          "cudaGraphExecEventRecordNodeSetEvent");
}
EMU_API(cudaGraphExecEventRecordNodeSetEvent,
        (cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode, cudaEvent_t event),
        (hGraphExec, hNode, event))

static cudaError_t cudaGraphExecEventWaitNodeSetEvent_impl(cudaGraphExec_t hGraphExec,
                                                           cudaGraphNode_t hNode,
                                                           cudaEvent_t event) {
    return set_event_node(hGraphExec, hNode, event, W_EVENT_WAIT,
                          "cudaGraphExecEventWaitNodeSetEvent");
}
EMU_API(cudaGraphExecEventWaitNodeSetEvent,
        (cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode, cudaEvent_t event),
        (hGraphExec, hNode, event))

void emu_graph_reset(int device) {
    for (size_t i = 0;; i++) {
        struct emu_handle *h = emu_handle_at(i);
        if (!h) break;
        if (h->kind != K_EXEC || !h->alive || h->device != device) continue;
        struct emu_exec *x = h->obj;
        h->alive = 0;
        h->reset = 1;
        emu_graph_release(x->g);
        x->g = NULL;
    }
}

/* ---- running a launch ---- */

static void prepare(struct emu_stream *s, struct emu_graph *g, struct emu_op *o) {
    for (size_t i = 0; i < g->n; i++) {
        struct emu_work *w = &g->nodes[i]->w;
        if (w->type == W_CHILD) prepare(s, w->u.graph.g, o);
        if (w->type != W_EVENT_RECORD && w->type != W_EVENT_WAIT) continue;
        struct emu_event *ev = w->u.event.ev;
        if (!ev->h->alive) continue; /* reported when the node runs */
        if (w->type == W_EVENT_RECORD) {
            ev->rec_stream = s;
            ev->rec_ticket = o->ticket;
            ev->serial++;
            ev->time_valid = 0;
            ev->cap = NULL;
        } else if (!emu_event_complete(ev)) {
            emu_op_add_dep(o, ev->rec_stream, ev->rec_ticket);
        }
    }
}

void emu_graph_prepare_launch(struct emu_stream *s, struct emu_graph *g, struct emu_op *o) {
    prepare(s, g, o);
}

void emu_graph_run(struct emu_stream *s, struct emu_graph *g, unsigned long long ticket) {
    char label[96];
    for (size_t i = 0; i < g->n; i++) {
        struct emu_work *w = &g->nodes[i]->w;
        snprintf(label, sizeof label, "graph %s node %zu on stream %llu", emu_work_name(w), i,
                 s->id);
        switch (w->type) {
        case W_COPY:
            emu_copy(label, w->u.copy.dst, w->u.copy.src, w->u.copy.n, w->u.copy.kind);
            break;
        case W_SET:
            emu_set2d(label, w->u.set.dst, w->u.set.pitch, w->u.set.value, w->u.set.elem,
                      w->u.set.width, w->u.set.height);
            break;
        case W_KERNEL:
            emu_kernel_run(s, w);
            break;
        case W_HOST:
            emu_run_callback_fn(w->u.host.fn, w->u.host.user);
            break;
        case W_CHILD:
            emu_graph_run(s, w->u.graph.g, ticket);
            break;
        case W_EVENT_RECORD: {
            struct emu_event *ev = w->u.event.ev;
            if (!ev->h->alive) {
                emu_hazard("record-on-destroyed-event", "%s records event %#llx, destroyed",
                           label, (unsigned long long)ev->h->value);
            } else if (ev->rec_stream == s && ev->rec_ticket == ticket) {
                ev->time_ms = emu_now_ms();
                ev->time_valid = 1;
            }
            break;
        }
        case W_EVENT_WAIT:
            if (!w->u.event.ev->h->alive)
                emu_hazard("use-after-destroy", "%s waits on event %#llx, destroyed", label,
                           (unsigned long long)w->u.event.ev->h->value);
            break;
        case W_MEM_ALLOC:
            if (w->u.alloc.a->state == S_LIVE)
                emu_hazard("double-free", "%s: graph allocation at %p is still allocated",
                           label, (void *)w->u.alloc.a->base);
            else
                emu_alloc_revive(w->u.alloc.a);
            break;
        case W_MEM_FREE:
            emu_free_ptr(label, w->u.free.ptr);
            break;
        default:
            break;
        }
    }
}

/* ---- user objects ---- */

struct job {
    struct job *next;
    cudaHostFn_t fn;
    void *ptr;
};
static struct job *jobs_head, *jobs_tail;
static int destructor_running, destructor_thread;

static void *destructor_main(void *arg) {
    (void)arg;
    emu_name_thread("user-object destructor thread", 1);
    pthread_mutex_lock(&emu_lock);
    for (;;) {
        while (!jobs_head) emu_wait();
        struct job *j = jobs_head;
        jobs_head = j->next;
        if (!jobs_head) jobs_tail = NULL;
        destructor_running = 1;
        emu_run_callback_fn(j->fn, j->ptr);
        destructor_running = 0;
        free(j);
        emu_wake();
    }
    return NULL;
}

void emu_destructors_idle(int *idle) { *idle = !jobs_head && !destructor_running; }

void emu_uobj_release(struct emu_uobj *o, unsigned count) {
    if ((long long)count > o->refs) {
        emu_hazard("user-object-over-release",
                   "user object %#llx: %u references released, %lld held",
                   (unsigned long long)o->h->value, count, o->refs);
        count = (unsigned)(o->refs > 0 ? o->refs : 0);
    }
    o->refs -= count;
    if (o->refs > 0 || !o->h->alive) return;
    o->h->alive = 0;
    struct job *j = emu_xcalloc(1, sizeof *j);
    j->fn = o->destroy;
    j->ptr = o->ptr;
    if (jobs_tail)
        jobs_tail->next = j;
    else
        jobs_head = j;
    jobs_tail = j;
    if (!destructor_thread) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_t th;
        if (pthread_create(&th, &attr, destructor_main, NULL) == 0) destructor_thread = 1;
        else fputs("cuda-emu: cannot start the destructor thread\n", stderr);
        pthread_attr_destroy(&attr);
    }
    emu_wake();
}

static cudaError_t cudaUserObjectCreate_impl(cudaUserObject_t *object_out, void *ptr,
                                             cudaHostFn_t destroy, unsigned int initialRefcount,
                                             unsigned int flags) {
    if (!object_out || !destroy || initialRefcount == 0 ||
        flags != cudaUserObjectNoDestructorSync)
        return cudaErrorInvalidValue;
    struct emu_uobj *o = emu_xcalloc(1, sizeof *o);
    o->ptr = ptr;
    o->destroy = destroy;
    o->refs = initialRefcount;
    o->h = emu_handle_new(K_USEROBJ, o, emu_self()->device);
    *object_out = (cudaUserObject_t)o->h->value;
    return cudaSuccess;
}
EMU_API(cudaUserObjectCreate,
        (cudaUserObject_t * object_out, void *ptr, cudaHostFn_t destroy,
         unsigned int initialRefcount, unsigned int flags),
        (object_out, ptr, destroy, initialRefcount, flags))

static cudaError_t cudaUserObjectRetain_impl(cudaUserObject_t object, unsigned int count) {
    struct emu_uobj *o = emu_handle_get("cudaUserObjectRetain", (uintptr_t)object, K_USEROBJ);
    if (!o || count == 0) return cudaErrorInvalidValue;
    o->refs += count;
    return cudaSuccess;
}
EMU_API(cudaUserObjectRetain, (cudaUserObject_t object, unsigned int count), (object, count))

static cudaError_t cudaUserObjectRelease_impl(cudaUserObject_t object, unsigned int count) {
    struct emu_uobj *o = emu_handle_get("cudaUserObjectRelease", (uintptr_t)object, K_USEROBJ);
    if (!o || count == 0) return cudaErrorInvalidValue;
    emu_uobj_release(o, count);
    return cudaSuccess;
}
EMU_API(cudaUserObjectRelease, (cudaUserObject_t object, unsigned int count), (object, count))

static cudaError_t cudaGraphRetainUserObject_impl(cudaGraph_t graph, cudaUserObject_t object,
                                                  unsigned int count, unsigned int flags) {
    struct emu_graph *g = emu_handle_get("cudaGraphRetainUserObject", (uintptr_t)graph, K_GRAPH);
    struct emu_uobj *o =
        emu_handle_get("cudaGraphRetainUserObject", (uintptr_t)object, K_USEROBJ);
    if (!g || !o || count == 0 || (flags & ~(unsigned)cudaGraphUserObjectMove))
        return cudaErrorInvalidValue;
    if (!(flags & cudaGraphUserObjectMove)) o->refs += count;
    uref_add(g, o, count);
    return cudaSuccess;
}
EMU_API(cudaGraphRetainUserObject,
        (cudaGraph_t graph, cudaUserObject_t object, unsigned int count, unsigned int flags),
        (graph, object, count, flags))

static cudaError_t cudaGraphReleaseUserObject_impl(cudaGraph_t graph, cudaUserObject_t object,
                                                   unsigned int count) {
    struct emu_graph *g =
        emu_handle_get("cudaGraphReleaseUserObject", (uintptr_t)graph, K_GRAPH);
    struct emu_uobj *o =
        emu_handle_get("cudaGraphReleaseUserObject", (uintptr_t)object, K_USEROBJ);
    if (!g || !o || count == 0) return cudaErrorInvalidValue;
    for (size_t i = 0; i < g->nurefs; i++) {
        if (g->urefs[i].o != o) continue;
        if (g->urefs[i].count < count) return cudaErrorInvalidValue;
        g->urefs[i].count -= count;
        if (!g->urefs[i].count) g->urefs[i] = g->urefs[--g->nurefs];
        emu_uobj_release(o, count);
        return cudaSuccess;
    }
    return cudaErrorInvalidValue;
}
EMU_API(cudaGraphReleaseUserObject, (cudaGraph_t graph, cudaUserObject_t object, unsigned int count),
        (graph, object, count))
