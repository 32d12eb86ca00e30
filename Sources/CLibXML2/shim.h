#ifndef DOCUTIL_CLIBXML2_SHIM_H
#define DOCUTIL_CLIBXML2_SHIM_H
#include <libxml/xmlversion.h>
/* Debian builds libxml2 with ICU; its ICU headers clash with the ICU inside Foundation. We never need
   libxml2's ICU converter types, so hide them. */
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlerror.h>

/// `xmlFree` is a global function pointer, which Swift 6 will not call directly.
static inline void docutil_xmlFree(void *pointer) { xmlFree(pointer); }

/// Silences libxml2's default error printer; callers read errors with xmlGetLastError.
static void docutil_xml_ignore_error(void *context, const char *message, ...) { (void)context; (void)message; }
static inline void docutil_xml_silence_errors(void) { xmlSetGenericErrorFunc(NULL, docutil_xml_ignore_error); }
#endif
