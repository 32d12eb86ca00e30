#include "heap.h"
#if defined(__linux__)
#include <malloc.h>
size_t docutil_heap_bytes(void) { struct mallinfo2 m = mallinfo2(); return m.uordblks + m.hblkhd; }
#else
size_t docutil_heap_bytes(void) { return 0; }
#endif
