#ifndef DOCUTIL_XML_EVENTS_H
#define DOCUTIL_XML_EVENTS_H

#include <stddef.h>

/// The kinds of event, numbered as libxml2's reader numbers its node types.
enum {
    DOCUTIL_XML_ELEMENT = 1,
    DOCUTIL_XML_TEXT = 3,
    DOCUTIL_XML_ENTITY_REFERENCE = 5,
    DOCUTIL_XML_WHITESPACE = 14,
    DOCUTIL_XML_END_ELEMENT = 15,
};

/// One attribute of an element: its name (owned by the parser's dictionary) and its value (an offset into the
/// recorder's bytes, NUL-terminated).
typedef struct {
    const unsigned char *name;
    size_t value;
} docutil_xml_attribute;

/// One event of the document, in order. An element with nothing inside it (`<a/>` or `<a></a>`) is one event with
/// `empty` set and no end event. Consecutive text (character data, CDATA, character and predefined entity
/// references) is one event; comments and processing instructions are left out.
typedef struct {
    int kind;
    int empty;
    int line;
    /// Elements and end elements: the qualified name (owned by the parser's dictionary).
    const unsigned char *name;
    /// Elements: the first of their attributes in the recorder's attribute table, and how many.
    size_t first_attribute;
    size_t attribute_count;
    /// Text and entity references: an offset into the recorder's bytes (NUL-terminated), and the length.
    size_t text;
    size_t text_length;
    /// Where this event's bytes start in the recorder's bytes (everything after belongs to it or to later events).
    size_t bytes_start;
} docutil_xml_event;

/// Records the events of libxml2's SAX2 push parser as a document is fed to it piece by piece, for a reader to take
/// in order. No DTD or external entity is loaded and no entity is substituted (the parser's own checks apply).
typedef struct docutil_xml_recorder {
    void *context;
    docutil_xml_event *events;
    size_t count;
    size_t capacity;
    docutil_xml_attribute *attributes;
    size_t attributes_used;
    size_t attributes_capacity;
    unsigned char *bytes;
    size_t bytes_used;
    size_t bytes_capacity;
    /// The first error (level error or fatal): the number of events recorded before it (-1 for none), its line
    /// and its message (owned by the recorder).
    long error_at;
    int error_line;
    char *error_message;
    /// Set when memory ran out: the events are incomplete.
    int out_of_memory;
} docutil_xml_recorder;

/// A recorder for a document named `path` (for libxml2's messages), parsed with libxml2's `options`; NULL when
/// memory runs out.
docutil_xml_recorder *docutil_xml_recorder_new(const char *path, int options);

/// Parses the next `size` bytes (`last` set for the end of the document), recording their events. Returns
/// libxml2's status (0 when no error so far).
int docutil_xml_recorder_feed(docutil_xml_recorder *recorder, const char *bytes, int size, int last);

/// Forgets every event before `keep` (the events from `keep` on, and their bytes, move to the front).
void docutil_xml_recorder_drop(docutil_xml_recorder *recorder, size_t keep);

/// Whether the last event may still grow or be closed by what comes next (an element not yet closed, or text).
int docutil_xml_recorder_last_is_open(const docutil_xml_recorder *recorder);

/// Frees the recorder and its parser.
void docutil_xml_recorder_free(docutil_xml_recorder *recorder);

#endif
