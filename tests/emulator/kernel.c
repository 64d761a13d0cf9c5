/* Libraries and kernels. cudaLibraryLoadData accepts NUL-terminated PTX text (each `.entry
 * NAME` is a kernel, its `.param` list the parameter layout), an ELF image (its size computed
 * from its own headers, every byte of it read, kernels named by its `.text.NAME` sections) and
 * a fatbin (magic 0xBA55ED50, u16 version, u16 header size, u64 payload size: that many bytes
 * read, kernels named by the `.entry NAME` strings inside; a cubin entry, kind 2, read by its
 * own ELF headers as the driver does, past its entry if they say so). Reading the whole image is the
 * point: a caller that passes fewer bytes than the image's headers claim is caught by
 * AddressSanitizer or valgrind.
 *
 * Kernels with these names do something (anything else is a no-op):
 *   emu_fill_u32(unsigned *p, unsigned n, unsigned v)     p[i] = v
 *   emu_tex_sum_u32(cudaTextureObject_t t, unsigned *out, unsigned n)
 *                                                         out[0] = sum of t's first n texels
 *   emu_add_u32(unsigned *p, unsigned n, unsigned v)      p[i] += v
 *   emu_copy_u32(unsigned *dst, const unsigned *src, unsigned n)
 *   emu_sleep(unsigned us)                                runs for us microseconds
 * Their memory accesses are checked against the registry like copies. */
#define _GNU_SOURCE
#include "emu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_IMAGE (1ULL << 30)

/* A module variable: `.global` or `.const` declarations of PTX text (`.attribute(.managed)`
 * ones are managed memory), each an allocation of its own, quarantined at unload. */
struct emu_global {
    char *name;
    struct emu_alloc *mem;
    int managed;
};

struct emu_library {
    struct emu_handle *h;
    struct emu_kernel **kernels;
    size_t n;
    struct emu_global *globals;
    size_t nglobals;
};

struct builtin {
    const char *name;
    size_t nparams;
    size_t off[3], size[3];
};
static const struct builtin builtins[] = {
    {"emu_fill_u32", 3, {0, 8, 12}, {8, 4, 4}},
    {"emu_add_u32", 3, {0, 8, 12}, {8, 4, 4}},
    {"emu_copy_u32", 3, {0, 8, 16}, {8, 8, 4}},
    {"emu_sleep", 1, {0}, {4}},
    {"emu_tex_sum_u32", 3, {0, 8, 16}, {8, 8, 4}},
};

static const char *kernel_name(const struct emu_kernel *k) { return k->ident; }

static const struct builtin *builtin_of(const char *name) {
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
        if (!strcmp(builtins[i].name, name)) return &builtins[i];
    return NULL;
}

static struct emu_kernel *add_kernel(struct emu_library *lib, const char *name, size_t len) {
    for (size_t i = 0; i < lib->n; i++)
        if (strlen(kernel_name(lib->kernels[i])) == len &&
            !memcmp(kernel_name(lib->kernels[i]), name, len))
            return NULL; /* the same entry twice */
    struct emu_kernel *k = emu_xcalloc(1, sizeof *k);
    k->lib = lib;
    k->name = emu_alloc_new(len + 1, M_NAME, -1);
    if (!k->name) {
        free(k);
        return NULL;
    }
    memcpy(k->name->alias, name, len);
    k->name->alias[len] = 0;
    k->ident = emu_xmalloc(len + 1);
    memcpy(k->ident, name, len);
    k->ident[len] = 0;
    k->max_dynamic_smem = 48 * 1024;
    const struct builtin *b = builtin_of(kernel_name(k));
    if (b) {
        k->known_layout = 1;
        k->nparams = b->nparams;
        memcpy(k->off, b->off, sizeof b->off);
        memcpy(k->size, b->size, sizeof b->size);
    }
    k->h = emu_handle_new(K_KERNEL, k, -1);
    lib->kernels = emu_xrealloc(lib->kernels, (lib->n + 1) * sizeof *lib->kernels);
    lib->kernels[lib->n++] = k;
    return k;
}

static int ident(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '$' || c == '.';
}

/* The size of one PTX parameter declaration such as `.param .u64 p` or
 * `.param .align 8 .b8 p[16]`, and its alignment; 0 when it is not understood. */
static size_t param_size(const char *p, const char *end, size_t *align) {
    size_t elem = 0, count = 1, al = 0;
    while (p < end) {
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
        const char *w = p;
        while (p < end && ident(*p)) p++;
        size_t n = (size_t)(p - w);
        if (n >= 3 && w[0] == '.' && (w[1] == 'u' || w[1] == 's' || w[1] == 'b' || w[1] == 'f')) {
            size_t bits = (size_t)strtoul(w + 2, NULL, 10);
            if (bits == 8 || bits == 16 || bits == 32 || bits == 64) elem = bits / 8;
        } else if (n == 6 && !memcmp(w, ".align", 6)) {
            while (p < end && (*p == ' ' || *p == '\t')) p++;
            al = (size_t)strtoul(p, NULL, 10);
            while (p < end && *p >= '0' && *p <= '9') p++;
        }
        if (p < end && *p == '[') {
            count = (size_t)strtoul(p + 1, NULL, 10);
            while (p < end && *p != ']') p++;
        }
        if (p == w) p++;
    }
    if (!elem || !count || count > 4096) return 0;
    *align = al ? al : elem;
    return elem * count;
}

static void ptx_params(struct emu_kernel *k, const char *open, const char *limit) {
    const char *close = memchr(open, ')', (size_t)(limit - open));
    if (!close) return;
    size_t off = 0, n = 0;
    const char *p = open + 1;
    while (p < close) {
        const char *comma = memchr(p, ',', (size_t)(close - p));
        const char *stop = comma ? comma : close;
        size_t align = 1, size = param_size(p, stop, &align);
        int blank = 1;
        for (const char *q = p; q < stop; q++) blank &= *q == ' ' || *q == '\t' || *q == '\n' || *q == '\r';
        if (!blank) {
            if (!size || n == EMU_MAX_PARAMS || !align || (align & (align - 1))) return;
            off = (off + align - 1) / align * align;
            k->off[n] = off;
            k->size[n] = size;
            off += size;
            n++;
        }
        p = stop + 1;
    }
    k->nparams = n;
    k->known_layout = 1;
}

/* Every `.entry NAME` in text[0..len): a kernel, with its parameters when `params`. */
static void scan_entries(struct emu_library *lib, const char *text, size_t len, int params) {
    static const char key[] = ".entry";
    for (size_t i = 0; i + sizeof key - 1 < len; i++) {
        if (memcmp(text + i, key, sizeof key - 1) != 0) continue;
        if (i > 0 && ident(text[i - 1])) continue;
        size_t j = i + sizeof key - 1;
        if (j >= len || (text[j] != ' ' && text[j] != '\t')) continue;
        while (j < len && (text[j] == ' ' || text[j] == '\t')) j++;
        size_t start = j;
        while (j < len && ident(text[j]) && j - start < 1024) j++;
        if (j == start) continue;
        struct emu_kernel *k = add_kernel(lib, text + start, j - start);
        if (!k || !params || k->known_layout) continue;
        while (j < len && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r')) j++;
        if (j < len && text[j] == '(') ptx_params(k, text + j, text + len);
    }
}

/* Every `.global` or `.const` variable declaration in text[0..len), up to its `;`: the name is
 * the last identifier before an optional `[N]` or `= …`; the size comes from the type and the
 * array length, as for parameters. Declarations without a size it understands are skipped. */
static void scan_globals(struct emu_library *lib, const char *text, size_t len) {
    static const char *keys[] = {".global", ".const"};
    for (size_t i = 0; i < len; i++) {
        size_t klen = 0;
        for (size_t k = 0; k < 2; k++) {
            size_t n = strlen(keys[k]);
            if (i + n < len && !memcmp(text + i, keys[k], n) && (i == 0 || !ident(text[i - 1])) &&
                (text[i + n] == ' ' || text[i + n] == '\t'))
                klen = n;
        }
        if (!klen) continue;
        const char *end = memchr(text + i, ';', len - i);
        if (!end) return;
        const char *stop = memchr(text + i, '=', (size_t)(end - (text + i)));
        if (!stop) stop = end;
        /* the name: the last identifier before `[` or the end */
        const char *bracket = memchr(text + i, '[', (size_t)(stop - (text + i)));
        const char *q = bracket ? bracket : stop;
        while (q > text + i && (q[-1] == ' ' || q[-1] == '\t')) q--;
        const char *name_end = q;
        while (q > text + i && ident(q[-1]) && q[-1] != '.') q--;
        size_t name_len = (size_t)(name_end - q);
        size_t align = 1, size = param_size(text + i + klen, stop, &align);
        const char *managed = memmem(text + i, (size_t)(stop - (text + i)), ".managed", 8);
        if (name_len && size && name_len < 1024) {
            lib->globals = emu_xrealloc(lib->globals, (lib->nglobals + 1) * sizeof *lib->globals);
            struct emu_global *g = &lib->globals[lib->nglobals++];
            g->name = emu_xmalloc(name_len + 1);
            memcpy(g->name, q, name_len);
            g->name[name_len] = 0;
            g->managed = managed != NULL;
            g->mem = emu_alloc_new(size, managed ? M_MANAGED : M_DEVICE, -1);
        }
        i = (size_t)(end - text);
    }
}

static unsigned long long rd(const unsigned char *p, int bytes) {
    unsigned long long v = 0;
    for (int i = bytes - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

/* Reads every byte of the image (the check that it is really there). */
static unsigned long long touch(const unsigned char *p, size_t n) {
    unsigned long long sum = 0;
    for (size_t i = 0; i < n; i++) sum += p[i];
    return sum;
}

static volatile unsigned long long image_checksum;

/* The size an ELF64 image claims from its headers (0: not one this reads). The image is read
 * from its first byte on, in order: the header tables' extent first (claimed by the 64-byte
 * header), then the sections' (claimed by the tables), so that a short image is overrun at
 * its end, where AddressSanitizer's redzone or valgrind's addressability check is. */
static size_t elf_size(const unsigned char *e, size_t available) {
    if (available < 64 || e[4] != 2 || e[5] != 1) return 0;
    unsigned long long phoff = rd(e + 0x20, 8), shoff = rd(e + 0x28, 8);
    unsigned phentsize = (unsigned)rd(e + 0x36, 2), phnum = (unsigned)rd(e + 0x38, 2);
    unsigned shentsize = (unsigned)rd(e + 0x3A, 2), shnum = (unsigned)rd(e + 0x3C, 2);
    if ((phnum && phentsize < 56) || (shnum && shentsize < 64)) return 0;
    if (phoff > MAX_IMAGE || shoff > MAX_IMAGE) return 0;
    unsigned long long size = 64;
    if (phnum && phoff + (unsigned long long)phnum * phentsize > size)
        size = phoff + (unsigned long long)phnum * phentsize;
    if (shnum && shoff + (unsigned long long)shnum * shentsize > size)
        size = shoff + (unsigned long long)shnum * shentsize;
    if (size > MAX_IMAGE) return 0;
    if (size > available) return (size_t)size;
    image_checksum += touch(e, (size_t)size);
    unsigned long long tables = size;
    for (unsigned i = 0; i < phnum; i++) {
        const unsigned char *ph = e + phoff + (unsigned long long)i * phentsize;
        unsigned long long off = rd(ph + 8, 8), filesz = rd(ph + 32, 8);
        if (off > MAX_IMAGE || filesz > MAX_IMAGE) return 0;
        if (off + filesz > size) size = off + filesz;
    }
    for (unsigned i = 0; i < shnum; i++) {
        const unsigned char *sh = e + shoff + (unsigned long long)i * shentsize;
        if (rd(sh + 4, 4) == 8 /* SHT_NOBITS */) continue;
        unsigned long long off = rd(sh + 24, 8), sz = rd(sh + 32, 8);
        if (off > MAX_IMAGE || sz > MAX_IMAGE) return 0;
        if (off + sz > size) size = off + sz;
    }
    if (size > MAX_IMAGE) return 0;
    if (size <= available) image_checksum += touch(e + tables, (size_t)(size - tables));
    return (size_t)size;
}

static void elf_kernels(struct emu_library *lib, const unsigned char *e, size_t size) {
    unsigned long long shoff = rd(e + 0x28, 8);
    unsigned shentsize = (unsigned)rd(e + 0x3A, 2), shnum = (unsigned)rd(e + 0x3C, 2);
    unsigned shstrndx = (unsigned)rd(e + 0x3E, 2);
    if (!shnum || shstrndx >= shnum) return;
    const unsigned char *strsec = e + shoff + (unsigned long long)shstrndx * shentsize;
    unsigned long long stroff = rd(strsec + 24, 8), strsize = rd(strsec + 32, 8);
    if (stroff > size || strsize > size - stroff) return;
    const char *strtab = (const char *)e + stroff;
    for (unsigned i = 0; i < shnum; i++) {
        const unsigned char *sh = e + shoff + (unsigned long long)i * shentsize;
        unsigned long long name = rd(sh, 4);
        if (name >= strsize) continue;
        const char *s = strtab + name;
        size_t max = (size_t)(strsize - name);
        size_t len = strnlen(s, max);
        if (len == max || len <= 6 || memcmp(s, ".text.", 6) != 0) continue;
        add_kernel(lib, s + 6, len - 6);
    }
}

/* Parses an image of `available` bytes (SIZE_MAX: as long as its headers say). */
static cudaError_t load_image(struct emu_library *lib, const void *code, size_t available) {
    const unsigned char *c = code;
    if (available >= 4 && c[0] == 0x7f && c[1] == 'E' && c[2] == 'L' && c[3] == 'F') {
        size_t size = elf_size(c, available);
        if (!size || size > available) return cudaErrorInvalidKernelImage;
        elf_kernels(lib, c, size);
        return cudaSuccess;
    }
    if (available >= 16 && rd(c, 4) == 0xBA55ED50ULL) {
        unsigned long long header = rd(c + 6, 2), payload = rd(c + 8, 8);
        if (header < 16 || payload > MAX_IMAGE || header + payload > available)
            return cudaErrorInvalidKernelImage;
        image_checksum += touch(c, (size_t)(header + payload));
        /* Entries (u16 kind, u16, u32 header size, u64 payload size, …): a cubin entry (kind
         * 2) is read by its own ELF headers, as the driver does, whatever its entry says. */
        const unsigned char *p = c + header, *end = c + header + payload;
        while ((size_t)(end - p) >= 16) {
            unsigned kind = (unsigned)rd(p, 2);
            unsigned long long eh = rd(p + 4, 4), ep = rd(p + 8, 8);
            if (eh < 16 || ep > MAX_IMAGE || eh + ep > (unsigned long long)(end - p)) break;
            const unsigned char *q = p + eh;
            if (kind == 2 && ep >= 4 && q[0] == 0x7f && q[1] == 'E' && q[2] == 'L' && q[3] == 'F') {
                size_t size = elf_size(q, SIZE_MAX);
                if (size) elf_kernels(lib, q, size);
            }
            p += eh + ep;
        }
        scan_entries(lib, (const char *)c + header, (size_t)payload, 1);
        return cudaSuccess;
    }
    size_t len = strnlen(code, available);
    if (len == available || len == 0) return cudaErrorInvalidPtx;
    scan_entries(lib, code, len, 1);
    scan_globals(lib, code, len);
    return cudaSuccess;
}

static void drop_globals(struct emu_library *lib, const char *by) {
    for (size_t i = 0; i < lib->nglobals; i++)
        if (lib->globals[i].mem) emu_alloc_free(lib->globals[i].mem, by);
}

static cudaError_t finish_library(cudaLibrary_t *out, struct emu_library *lib, cudaError_t e) {
    if (e != cudaSuccess) {
        for (size_t i = 0; i < lib->n; i++) {
            lib->kernels[i]->h->alive = 0;
            emu_alloc_free(lib->kernels[i]->name, "a failed library load");
        }
        free(lib->kernels);
        lib->kernels = NULL;
        lib->n = 0;
        drop_globals(lib, "a failed library load");
        for (size_t i = 0; i < lib->nglobals; i++) free(lib->globals[i].name);
        free(lib->globals);
        free(lib);
        return e;
    }
    lib->h = emu_handle_new(K_LIBRARY, lib, -1);
    *out = (cudaLibrary_t)lib->h->value;
    return cudaSuccess;
}

static cudaError_t cudaLibraryLoadData_impl(cudaLibrary_t *library, const void *code,
                                            enum cudaJitOption *jitOptions, void **jitOptionsValues,
                                            unsigned int numJitOptions,
                                            enum cudaLibraryOption *libraryOptions,
                                            void **libraryOptionValues,
                                            unsigned int numLibraryOptions) {
    (void)jitOptions, (void)jitOptionsValues, (void)libraryOptions, (void)libraryOptionValues;
    if (!library || !code || numJitOptions || numLibraryOptions) return cudaErrorInvalidValue;
    struct emu_library *lib = emu_xcalloc(1, sizeof *lib);
    /* the caller gives no length: the image is read as far as it says it reaches */
    return finish_library(library, lib, load_image(lib, code, SIZE_MAX));
}
EMU_API(cudaLibraryLoadData,
        (cudaLibrary_t * library, const void *code, enum cudaJitOption *jitOptions,
         void **jitOptionsValues, unsigned int numJitOptions,
         enum cudaLibraryOption *libraryOptions, void **libraryOptionValues,
         unsigned int numLibraryOptions),
        (library, code, jitOptions, jitOptionsValues, numJitOptions, libraryOptions,
         libraryOptionValues, numLibraryOptions))

static cudaError_t cudaLibraryLoadFromFile_impl(cudaLibrary_t *library, const char *fileName,
                                                enum cudaJitOption *jitOptions,
                                                void **jitOptionsValues,
                                                unsigned int numJitOptions,
                                                enum cudaLibraryOption *libraryOptions,
                                                void **libraryOptionValues,
                                                unsigned int numLibraryOptions) {
    (void)jitOptions, (void)jitOptionsValues, (void)libraryOptions, (void)libraryOptionValues;
    if (!library || !fileName || numJitOptions || numLibraryOptions) return cudaErrorInvalidValue;
    FILE *f = fopen(fileName, "rb");
    if (!f) return cudaErrorFileNotFound;
    size_t cap = 4096, len = 0;
    unsigned char *buf = emu_xmalloc(cap + 1);
    for (;;) {
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (len < cap) break;
        if (cap >= MAX_IMAGE) {
            fclose(f);
            free(buf);
            return cudaErrorInvalidKernelImage;
        }
        cap *= 2;
        buf = emu_xrealloc(buf, cap + 1);
    }
    fclose(f);
    buf[len] = 0; /* PTX text need not end with a NUL in a file */
    struct emu_library *lib = emu_xcalloc(1, sizeof *lib);
    int binary = len >= 4 && (!memcmp(buf, "\x7f" "ELF", 4) || rd(buf, 4) == 0xBA55ED50ULL);
    cudaError_t e = load_image(lib, buf, binary ? len : len + 1);
    free(buf);
    return finish_library(library, lib, e);
}
EMU_API(cudaLibraryLoadFromFile,
        (cudaLibrary_t * library, const char *fileName, enum cudaJitOption *jitOptions,
         void **jitOptionsValues, unsigned int numJitOptions,
         enum cudaLibraryOption *libraryOptions, void **libraryOptionValues,
         unsigned int numLibraryOptions),
        (library, fileName, jitOptions, jitOptionsValues, numJitOptions, libraryOptions,
         libraryOptionValues, numLibraryOptions))

static cudaError_t cudaLibraryUnload_impl(cudaLibrary_t library) {
    struct emu_library *lib = emu_handle_take("cudaLibraryUnload", (uintptr_t)library, K_LIBRARY);
    if (!lib) return cudaErrorInvalidResourceHandle;
    lib->h->alive = 0;
    for (size_t i = 0; i < lib->n; i++) {
        lib->kernels[i]->h->alive = 0;
        emu_alloc_free(lib->kernels[i]->name, "cudaLibraryUnload");
    }
    drop_globals(lib, "cudaLibraryUnload");
    return cudaSuccess;
}
EMU_API(cudaLibraryUnload, (cudaLibrary_t library), (library))

static cudaError_t get_global(void **dptr, size_t *bytes, cudaLibrary_t library, const char *name,
                              int managed, const char *op) {
    if (!dptr || !name) return cudaErrorInvalidValue;
    struct emu_library *lib = emu_handle_get(op, (uintptr_t)library, K_LIBRARY);
    if (!lib) return cudaErrorInvalidResourceHandle;
    for (size_t i = 0; i < lib->nglobals; i++) {
        struct emu_global *g = &lib->globals[i];
        if (strcmp(g->name, name) || g->managed != managed) continue;
        *dptr = g->mem->base;
        if (bytes) *bytes = g->mem->size;
        return cudaSuccess;
    }
    return cudaErrorSymbolNotFound;
}

static cudaError_t cudaLibraryGetGlobal_impl(void **dptr, size_t *bytes, cudaLibrary_t library,
                                             const char *name) {
    return get_global(dptr, bytes, library, name, 0, "cudaLibraryGetGlobal");
}
EMU_API(cudaLibraryGetGlobal, (void **dptr, size_t *bytes, cudaLibrary_t library, const char *name),
        (dptr, bytes, library, name))

static cudaError_t cudaLibraryGetManaged_impl(void **dptr, size_t *bytes, cudaLibrary_t library,
                                              const char *name) {
    return get_global(dptr, bytes, library, name, 1, "cudaLibraryGetManaged");
}
EMU_API(cudaLibraryGetManaged, (void **dptr, size_t *bytes, cudaLibrary_t library, const char *name),
        (dptr, bytes, library, name))

static cudaError_t cudaLibraryGetKernel_impl(cudaKernel_t *pKernel, cudaLibrary_t library,
                                             const char *name) {
    if (!pKernel || !name) return cudaErrorInvalidValue;
    struct emu_library *lib = emu_handle_get("cudaLibraryGetKernel", (uintptr_t)library, K_LIBRARY);
    if (!lib) return cudaErrorInvalidResourceHandle;
    for (size_t i = 0; i < lib->n; i++) {
        if (!strcmp(kernel_name(lib->kernels[i]), name)) {
            *pKernel = (cudaKernel_t)lib->kernels[i]->h->value;
            return cudaSuccess;
        }
    }
    return cudaErrorSymbolNotFound;
}
EMU_API(cudaLibraryGetKernel, (cudaKernel_t * pKernel, cudaLibrary_t library, const char *name),
        (pKernel, library, name))

struct emu_kernel *emu_kernel_get(const char *op, const void *func) {
    struct emu_handle *h = emu_handle_peek((uintptr_t)func);
    if (h && h->kind == K_KERNEL && !h->alive) {
        emu_hazard("use-after-destroy", "%s: kernel %#llx of an unloaded library", op,
                   (unsigned long long)h->value);
        return NULL;
    }
    return emu_handle_get(op, (uintptr_t)func, K_KERNEL);
}

static cudaError_t cudaFuncGetName_impl(const char **name, const void *func) {
    if (!name) return cudaErrorInvalidValue;
    struct emu_kernel *k = emu_kernel_get("cudaFuncGetName", func);
    if (!k) return cudaErrorInvalidDeviceFunction;
    *name = k->name->base; /* lives in pages of its own, quarantined at unload */
    return cudaSuccess;
}
EMU_API(cudaFuncGetName, (const char **name, const void *func), (name, func))

static cudaError_t cudaFuncGetAttributes_impl(struct cudaFuncAttributes *attr, const void *func) {
    if (!attr) return cudaErrorInvalidValue;
    struct emu_kernel *k = emu_kernel_get("cudaFuncGetAttributes", func);
    if (!k) return cudaErrorInvalidDeviceFunction;
    memset(attr, 0, sizeof *attr);
    attr->maxThreadsPerBlock = 1024;
    attr->numRegs = 32;
    attr->ptxVersion = 90;
    attr->binaryVersion = 90;
    attr->maxDynamicSharedSizeBytes = k->max_dynamic_smem;
    attr->preferredShmemCarveout = -1;
    return cudaSuccess;
}
EMU_API(cudaFuncGetAttributes, (struct cudaFuncAttributes * attr, const void *func), (attr, func))

static cudaError_t cudaFuncSetAttribute_impl(const void *func, enum cudaFuncAttribute attr,
                                             int value) {
    struct emu_kernel *k = emu_kernel_get("cudaFuncSetAttribute", func);
    if (!k) return cudaErrorInvalidDeviceFunction;
    if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
        if (value < 0 || value > 227 * 1024) return cudaErrorInvalidValue;
        k->max_dynamic_smem = value;
    }
    return cudaSuccess;
}
EMU_API(cudaFuncSetAttribute, (const void *func, enum cudaFuncAttribute attr, int value),
        (func, attr, value))

static cudaError_t cudaFuncGetParamInfo_impl(const void *func, size_t paramIndex,
                                             size_t *paramOffset, size_t *paramSize) {
    struct emu_kernel *k = emu_kernel_get("cudaFuncGetParamInfo", func);
    if (!k) return cudaErrorInvalidDeviceFunction;
    /* A kernel whose layout the emulator does not know: it cannot say (not "no parameters"). */
    if (!k->known_layout) return cudaErrorNotSupported;
    if (paramIndex >= k->nparams) return cudaErrorInvalidValue;
    if (paramOffset) *paramOffset = k->off[paramIndex];
    if (paramSize) *paramSize = k->size[paramIndex];
    return cudaSuccess;
}
EMU_API(cudaFuncGetParamInfo,
        (const void *func, size_t paramIndex, size_t *paramOffset, size_t *paramSize),
        (func, paramIndex, paramOffset, paramSize))

static cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor_impl(int *numBlocks,
                                                                      const void *func,
                                                                      int blockSize,
                                                                      size_t dynamicSMemSize) {
    if (!numBlocks || blockSize <= 0 || blockSize > 1024) return cudaErrorInvalidValue;
    struct emu_kernel *k = emu_kernel_get("cudaOccupancyMaxActiveBlocksPerMultiprocessor", func);
    if (!k) return cudaErrorInvalidDeviceFunction;
    int by_threads = 2048 / blockSize;
    int by_smem = dynamicSMemSize ? (int)((228 * 1024) / dynamicSMemSize) : 32;
    int n = by_threads < by_smem ? by_threads : by_smem;
    *numBlocks = n < 32 ? n : 32;
    return cudaSuccess;
}
EMU_API(cudaOccupancyMaxActiveBlocksPerMultiprocessor,
        (int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize),
        (numBlocks, func, blockSize, dynamicSMemSize))

static cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock_impl(size_t *dynamicSmemSize,
                                                                   const void *func,
                                                                   int numBlocks, int blockSize) {
    if (!dynamicSmemSize || numBlocks <= 0 || blockSize <= 0 || blockSize > 1024)
        return cudaErrorInvalidValue;
    struct emu_kernel *k = emu_kernel_get("cudaOccupancyAvailableDynamicSMemPerBlock", func);
    if (!k) return cudaErrorInvalidDeviceFunction;
    if (numBlocks * blockSize > 2048) return cudaErrorInvalidValue;
    size_t per_block = (size_t)(228 * 1024) / (size_t)numBlocks;
    *dynamicSmemSize = per_block < 227 * 1024 ? per_block : 227 * 1024;
    return cudaSuccess;
}
EMU_API(cudaOccupancyAvailableDynamicSMemPerBlock,
        (size_t *dynamicSmemSize, const void *func, int numBlocks, int blockSize),
        (dynamicSmemSize, func, numBlocks, blockSize))

/* The cluster size a launch configuration asks for (0 without the attribute). */
static unsigned config_cluster_size(const cudaLaunchConfig_t *config) {
    for (unsigned i = 0; config->attrs && i < config->numAttrs; i++)
        if (config->attrs[i].id == cudaLaunchAttributeClusterDimension)
            return config->attrs[i].val.clusterDim.x * config->attrs[i].val.clusterDim.y *
                   config->attrs[i].val.clusterDim.z;
    return 0;
}

static cudaError_t cudaOccupancyMaxActiveClusters_impl(int *numClusters, const void *func,
                                                       const cudaLaunchConfig_t *config) {
    if (!numClusters || !config) return cudaErrorInvalidValue;
    struct emu_kernel *k = emu_kernel_get("cudaOccupancyMaxActiveClusters", func);
    if (!k) return cudaErrorInvalidDeviceFunction;
    unsigned block = config->blockDim.x * config->blockDim.y * config->blockDim.z;
    unsigned cluster = config_cluster_size(config);
    if (block == 0 || block > 1024) return cudaErrorInvalidValue;
    if (cluster == 0 || cluster > 8) return cudaErrorInvalidClusterSize;
    int per_sm = 0;
    cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor_impl(
        &per_sm, func, (int)block, config->dynamicSmemBytes);
    if (e != cudaSuccess) return e;
    *numClusters = (int)((unsigned)per_sm * 132u / cluster);
    return cudaSuccess;
}
EMU_API(cudaOccupancyMaxActiveClusters,
        (int *numClusters, const void *func, const cudaLaunchConfig_t *config),
        (numClusters, func, config))

static cudaError_t cudaOccupancyMaxPotentialClusterSize_impl(int *clusterSize, const void *func,
                                                             const cudaLaunchConfig_t *config) {
    if (!clusterSize || !config) return cudaErrorInvalidValue;
    struct emu_kernel *k = emu_kernel_get("cudaOccupancyMaxPotentialClusterSize", func);
    if (!k) return cudaErrorInvalidDeviceFunction;
    *clusterSize = 8; /* the portable maximum */
    return cudaSuccess;
}
EMU_API(cudaOccupancyMaxPotentialClusterSize,
        (int *clusterSize, const void *func, const cudaLaunchConfig_t *config),
        (clusterSize, func, config))

/* ---- launches ---- */

cudaError_t emu_kernel_args(struct emu_kernel *k, void **args, struct emu_work *w) {
    w->u.kernel.args = NULL;
    w->u.kernel.argbytes = 0;
    if (!k->known_layout) return cudaSuccess; /* a no-op kernel: its arguments are not read */
    if (k->nparams && !args) return cudaErrorInvalidValue;
    size_t total = 0;
    for (size_t i = 0; i < k->nparams; i++)
        if (k->off[i] + k->size[i] > total) total = k->off[i] + k->size[i];
    unsigned char *buf = emu_xcalloc(total ? total : 1, 1);
    for (size_t i = 0; i < k->nparams; i++) {
        if (!args[i]) {
            free(buf);
            return cudaErrorInvalidValue;
        }
        memcpy(buf + k->off[i], args[i], k->size[i]);
    }
    w->u.kernel.args = buf;
    w->u.kernel.argbytes = total;
    return cudaSuccess;
}

static int valid_dims(dim3 grid, dim3 block) {
    if (!grid.x || !grid.y || !grid.z || !block.x || !block.y || !block.z) return 0;
    if (block.x > 1024 || block.y > 1024 || block.z > 64) return 0;
    return (unsigned long long)block.x * block.y * block.z <= 1024;
}

static cudaError_t launch(const void *func, dim3 grid, dim3 block, void **args, size_t smem,
                          cudaStream_t stream, const char *op) {
    struct emu_kernel *k = emu_kernel_get(op, func);
    if (!k) return cudaErrorInvalidDeviceFunction;
    if (!valid_dims(grid, block)) return cudaErrorInvalidConfiguration;
    if (smem > (size_t)k->max_dynamic_smem) return cudaErrorInvalidValue;
    cudaError_t e;
    struct emu_stream *s = emu_stream_resolve(op, stream, &e);
    if (!s) return e;
    if (s->device != emu_self()->device) return cudaErrorInvalidResourceHandle;
    struct emu_work w = {.type = W_KERNEL};
    w.u.kernel.k = k;
    w.u.kernel.grid = grid;
    w.u.kernel.block = block;
    w.u.kernel.smem = smem;
    e = emu_kernel_args(k, args, &w);
    if (e != cudaSuccess) return e;
    return emu_submit(s, &w, op);
}

static cudaError_t cudaLaunchKernel_impl(const void *func, dim3 gridDim, dim3 blockDim,
                                         void **args, size_t sharedMem, cudaStream_t stream) {
    return launch(func, gridDim, blockDim, args, sharedMem, stream, "cudaLaunchKernel");
}
EMU_API(cudaLaunchKernel,
        (const void *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem,
         cudaStream_t stream),
        (func, gridDim, blockDim, args, sharedMem, stream))

static cudaError_t cudaLaunchKernelExC_impl(const cudaLaunchConfig_t *config, const void *func,
                                            void **args) {
    if (!config || (config->numAttrs && !config->attrs)) return cudaErrorInvalidValue;
    for (unsigned i = 0; i < config->numAttrs; i++) {
        const cudaLaunchAttribute *a = &config->attrs[i];
        if (a->id == cudaLaunchAttributeClusterDimension) {
            dim3 c = {a->val.clusterDim.x, a->val.clusterDim.y, a->val.clusterDim.z};
            if (!c.x || !c.y || !c.z || config->gridDim.x % c.x || config->gridDim.y % c.y ||
                config->gridDim.z % c.z)
                return cudaErrorInvalidValue;
        }
    }
    return launch(func, config->gridDim, config->blockDim, args, config->dynamicSmemBytes,
                  config->stream, "cudaLaunchKernelExC");
}
EMU_API(cudaLaunchKernelExC, (const cudaLaunchConfig_t *config, const void *func, void **args),
        (config, func, args))

void emu_kernel_run(struct emu_stream *s, struct emu_work *w) {
    struct emu_kernel *k = w->u.kernel.k;
    char label[160];
    snprintf(label, sizeof label, "kernel %.64s on stream %llu", kernel_name(k), s->id);
    if (!k->h->alive) {
        emu_hazard("use-after-destroy", "%s: its library was unloaded", label);
        return;
    }
    if (!k->known_layout || !w->u.kernel.args) return;
    const unsigned char *a = w->u.kernel.args;
    const char *name = kernel_name(k);
    if (!strcmp(name, "emu_sleep")) {
        unsigned us;
        memcpy(&us, a, 4);
        pthread_mutex_unlock(&emu_lock);
        emu_sleep_us(us);
        pthread_mutex_lock(&emu_lock);
        return;
    }
    void *p;
    unsigned n, v;
    if (!strcmp(name, "emu_tex_sum_u32")) {
        /* out[0] = the sum of the first n u32 texels of a linear texture object. */
        unsigned long long tex;
        memcpy(&tex, a, 8);
        memcpy(&p, a + 8, 8);
        memcpy(&n, a + 16, 4);
        size_t bytes = 0;
        const void *mem = emu_texture_linear(label, tex, &bytes);
        const unsigned char *src =
            mem && (size_t)n * 4 <= bytes ? (const unsigned char *)emu_access(label, mem, (size_t)n * 4, 0, 1) : NULL;
        unsigned sum = 0;
        for (unsigned i = 0; src && i < n; i++) {
            unsigned x;
            memcpy(&x, src + 4 * i, 4);
            sum += x;
        }
        unsigned char *d = (unsigned char *)emu_access(label, p, 4, 1, 1);
        if (d) memcpy(d, &sum, 4);
        return;
    }
    if (!strcmp(name, "emu_copy_u32")) {
        void *src;
        memcpy(&p, a, 8);
        memcpy(&src, a + 8, 8);
        memcpy(&n, a + 16, 4);
        emu_copy(label, p, src, (size_t)n * 4, cudaMemcpyDeviceToDevice);
        return;
    }
    memcpy(&p, a, 8);
    memcpy(&n, a + 8, 4);
    memcpy(&v, a + 12, 4);
    if (!strcmp(name, "emu_fill_u32")) {
        unsigned *d = (unsigned *)emu_access(label, p, (size_t)n * 4, 1, 1);
        for (unsigned i = 0; d && i < n; i++) memcpy(d + i, &v, 4);
    } else if (!strcmp(name, "emu_add_u32")) {
        unsigned char *d = (unsigned char *)emu_access(label, p, (size_t)n * 4, 1, 1);
        for (unsigned i = 0; d && i < n; i++) {
            unsigned x;
            memcpy(&x, d + 4 * i, 4);
            x += v;
            memcpy(d + 4 * i, &x, 4);
        }
    }
}
