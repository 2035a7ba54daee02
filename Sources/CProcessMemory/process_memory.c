// The pages the daemon gives back once it is ready (the release link's start-up code,
// linker/housectl-hot.ld, the code no list names, the read-only data), for
// HouseDaemon/ProcessMemory. Compiled here, not in the module's header: dl_iterate_phdr needs
// _GNU_SOURCE, which changes glibc's own types (fd_set's member names), and a header that defines
// it makes this module disagree with every other C module that includes the same system headers.
#if defined(__linux__) && __has_include(<link.h>)
#ifndef _GNU_SOURCE
#define _GNU_SOURCE // dl_iterate_phdr, struct dl_phdr_info
#endif
#include "CProcessMemory.h"
#include <errno.h>
#include <link.h>
#include <malloc.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>
// Where valgrind is installed (`make order-file` installs it), the release tells callgrind to dump
// its counts, which splits the trace into start-up and the rest; elsewhere it is nothing. Outside
// valgrind the request is a few instructions that do nothing.
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define HOUSECTL_CALLGRIND_DUMP() CALLGRIND_DUMP_STATS_AT("start-up code released")
#else
#define HOUSECTL_CALLGRIND_DUMP() ((void)0)
#endif

// The bounds of the code that only start-up and shutdown run, page-aligned: defined by the hot
// list's linker script in a release link, null (weak and undefined) in any other.
extern const char housectl_startup_code_start[] __attribute__((weak));
extern const char housectl_startup_code_end[] __attribute__((weak));

// Unmaps [start, end), page-aligned inward: clean file-backed pages only (the caller's promise).
// The pages stay in the page cache, where the kernel may drop them, and fault back in if used
// again. Returns the bytes unmapped or -errno.
static long housectl_unmap_clean(uintptr_t start, uintptr_t end) {
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    start = (start + page - 1) & ~(page - 1);
    end &= ~(page - 1);
    if (end <= start) return 0;
    return madvise((void *)start, end - start, MADV_DONTNEED) == 0 ? (long)(end - start) : -(long)errno;
}

struct housectl_release {
    uintptr_t code_start;
    int objects;
    long bytes;
};

// For dl_iterate_phdr, whose first object is the program itself, then the shared libraries and
// the loader. Of the program: its code from the start-up part to the end of the executable
// segment. Of each object with a file: its segments that are only readable (ELF headers, symbol
// and relocation tables the loader read, Swift's metadata, .rodata, unwind tables) and, of the
// shared libraries, their code too (what start-up ran of libc, SQLite, the loader, OpenSSL's
// initialisation: what commands run again faults back in), unless the object has text
// relocations (the loader would have written into them) or the segment overlaps the part the
// loader relocates (PT_GNU_RELRO). Stops at the first refusal.
static int housectl_release_readonly_segments(struct dl_phdr_info *info, size_t size, void *context) {
    (void)size;
    struct housectl_release *release = (struct housectl_release *)context;
    int program = release->objects++ == 0;
    // The vDSO and the like: no file behind them.
    if (!program && (info->dlpi_name == NULL || info->dlpi_name[0] != '/')) return 0;
    uintptr_t relro_start = 0, relro_end = 0, code_end = 0;
    const ElfW(Dyn) *dynamic = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        uintptr_t start = info->dlpi_addr + p->p_vaddr, end = start + p->p_memsz;
        if (p->p_type == PT_GNU_RELRO) { relro_start = start; relro_end = end; }
        if (p->p_type == PT_DYNAMIC) dynamic = (const ElfW(Dyn) *)start;
        if (p->p_type == PT_LOAD && (p->p_flags & PF_X) && start <= release->code_start && release->code_start < end) code_end = end;
    }
    if (program) {
        // The start-up part, then the code no list names (what runs again faults back in).
        if (code_end == 0) return 1;
        HOUSECTL_CALLGRIND_DUMP();
        long code = housectl_unmap_clean(release->code_start, code_end);
        if (code < 0) { release->bytes = code; return 1; }
        release->bytes = code;
    }
    for (const ElfW(Dyn) *d = dynamic; d && d->d_tag != DT_NULL; d++) {
        if (d->d_tag == DT_TEXTREL || (d->d_tag == DT_FLAGS && (d->d_un.d_val & DF_TEXTREL))) return 0;
    }
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        if (p->p_type != PT_LOAD || (p->p_flags & PF_W) || (program && (p->p_flags & PF_X))) continue;
        uintptr_t start = info->dlpi_addr + p->p_vaddr, end = start + p->p_memsz;
        if (start < relro_end && relro_start < end) continue;
        long data = housectl_unmap_clean(start, end);
        if (data < 0) { release->bytes = data; return 1; }
        release->bytes += data;
    }
    return 0;
}

// See CProcessMemory.h.
long housectl_release_startup_pages(void) {
    struct housectl_release release = { (uintptr_t)housectl_startup_code_start, 0, 0 };
    if (release.code_start == 0 || (uintptr_t)housectl_startup_code_end == 0) return 0;
    dl_iterate_phdr(housectl_release_readonly_segments, &release);
    return release.bytes;
}
#endif
