#ifndef DOCUTIL_BENCH_HEAP_H
#define DOCUTIL_BENCH_HEAP_H
#include <stddef.h>
/// Bytes currently allocated on the heap (glibc mallinfo2), or 0 where unavailable.
size_t docutil_heap_bytes(void);
#endif
