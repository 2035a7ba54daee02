#ifndef HOUSECTL_CPROCESSMEMORY_H
#define HOUSECTL_CPROCESSMEMORY_H
// glibc's malloc tuning (mallopt), which Swift's Glibc module does not import, and the pages the
// daemon gives back once it is ready, for HouseDaemon/ProcessMemory. Only headers whose types do
// not depend on feature macros such as _GNU_SOURCE: the module's types must match every other C
// module's (process_memory.c defines what needs more).
#if defined(__linux__) && __has_include(<malloc.h>)
#include <malloc.h>

/// Unmaps the pages the daemon needs no more once it is ready (madvise MADV_DONTNEED of clean
/// file-backed pages): its code from the start-up part of the hot list to the end (the start-up
/// part and the code the list does not name) and the read-only data of the program and its
/// shared libraries. Returns the bytes unmapped, 0 when the link marks no start-up code (no list:
/// nothing is unmapped), or -errno.
long housectl_release_startup_pages(void);
#endif
#endif
