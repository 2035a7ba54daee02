#ifndef HOUSECTL_CPROCESSMEMORY_SHIM_H
#define HOUSECTL_CPROCESSMEMORY_SHIM_H
// glibc's malloc tuning (mallopt), which Swift's Glibc module does not import, and the start-up
// part of the release link's hot code (linker/housectl-hot.ld), for HouseDaemon/ProcessMemory.
#if defined(__linux__) && __has_include(<malloc.h>)
#include <errno.h>
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

// Unmaps the start-up code (madvise MADV_DONTNEED). It is clean file-backed text: the pages stay
// in the page cache, where the kernel may drop them, and fault back in if the code runs again.
// Returns the bytes unmapped, 0 when the link marks no start-up code, or -errno.
static inline long housectl_release_startup_code(void) {
    uintptr_t start = (uintptr_t)housectl_startup_code_start;
    uintptr_t end = (uintptr_t)housectl_startup_code_end;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    if (start == 0 || end == 0 || page == 0) return 0;
    start = (start + page - 1) & ~(page - 1);
    end &= ~(page - 1);
    if (end <= start) return 0;
    HOUSECTL_CALLGRIND_DUMP();
    return madvise((void *)start, end - start, MADV_DONTNEED) == 0 ? (long)(end - start) : -(long)errno;
}
#endif
#endif
