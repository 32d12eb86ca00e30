#ifndef DOCUTIL_CZLIB_SHIM_H
#define DOCUTIL_CZLIB_SHIM_H
#include <zlib.h>

/// `inflateInit2` and `deflateInit2` are macros; these wrappers make them callable from Swift.
/// A negative window size selects raw DEFLATE (RFC 1951) with no zlib header.
static inline int docutil_inflate_init2(z_stream *stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}
static inline int docutil_deflate_init2(z_stream *stream, int level, int windowBits) {
    return deflateInit2(stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY);
}
#endif
