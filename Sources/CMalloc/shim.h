#ifndef HOUSECTL_CMALLOC_SHIM_H
#define HOUSECTL_CMALLOC_SHIM_H
// glibc's malloc tuning (mallopt), which Swift's Glibc module does not import.
#if defined(__linux__) && __has_include(<malloc.h>)
#include <malloc.h>
#endif
#endif
