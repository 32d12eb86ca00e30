#include "docutil_xml_events.h"

#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/xmlerror.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static int grow(void **pointer, size_t *capacity, size_t needed, size_t size) {
    if (needed <= *capacity) return 1;
    size_t next = *capacity ? *capacity : 256;
    while (next < needed) {
        if (next > ((size_t)-1) / 4 / size) return 0;
        next *= 2;
    }
    void *grown = realloc(*pointer, next * size);
    if (!grown) return 0;
    *pointer = grown;
    *capacity = next;
    return 1;
}

static docutil_xml_event *append_event(docutil_xml_recorder *r, int kind) {
    if (!grow((void **)&r->events, &r->capacity, r->count + 1, sizeof(docutil_xml_event))) {
        r->out_of_memory = 1;
        xmlStopParser((xmlParserCtxtPtr)r->context);
        return NULL;
    }
    docutil_xml_event *event = &r->events[r->count++];
    memset(event, 0, sizeof *event);
    event->kind = kind;
    xmlParserCtxtPtr context = (xmlParserCtxtPtr)r->context;
    event->line = context && context->input ? context->input->line : 0;
    event->bytes_start = r->bytes_used;
    return event;
}

/// Appends `length` bytes and a NUL; the offset of the first, or (size_t)-1 when memory runs out.
static size_t append_bytes(docutil_xml_recorder *r, const unsigned char *bytes, size_t length) {
    if (length > ((size_t)-1) / 2 || !grow((void **)&r->bytes, &r->bytes_capacity, r->bytes_used + length + 1, 1)) {
        r->out_of_memory = 1;
        xmlStopParser((xmlParserCtxtPtr)r->context);
        return (size_t)-1;
    }
    size_t offset = r->bytes_used;
    if (length) memcpy(r->bytes + offset, bytes, length);
    r->bytes[offset + length] = 0;
    r->bytes_used = offset + length + 1;
    return offset;
}

static const xmlChar *qualified(docutil_xml_recorder *r, const xmlChar *prefix, const xmlChar *local) {
    if (!prefix) return local;
    xmlParserCtxtPtr context = (xmlParserCtxtPtr)r->context;
    return xmlDictQLookup(context->dict, prefix, local);
}

/* Without entity substitution (never asked for: it would expand what a document declares), libxml2 hands an
   attribute value's '&' over as the reference "&#38;", and every other character as itself. Whether this libxml2 does
   is found once, by parsing a one-element document; the attribute values are then given back their '&'. */
static int ampersand_as_reference;
static pthread_once_t ampersand_probe = PTHREAD_ONCE_INIT;

static void probe_element(void *data, const xmlChar *local, const xmlChar *prefix, const xmlChar *uri,
                          int namespace_count, const xmlChar **namespaces, int attribute_count,
                          int defaulted_count, const xmlChar **attributes) {
    (void)local, (void)prefix, (void)uri, (void)namespace_count, (void)namespaces, (void)defaulted_count;
    if (attribute_count == 1 && attributes[4] - attributes[3] == 5 && memcmp(attributes[3], "&#38;", 5) == 0)
        *(int *)data = 1;
}

static void probe_ampersand(void) {
    static const char document[] = "<a b=\"&amp;\"/>";
    xmlSAXHandler handler;
    memset(&handler, 0, sizeof handler);
    handler.initialized = XML_SAX2_MAGIC;
    handler.startElementNs = probe_element;
    int found = 0;
    xmlParserCtxtPtr context = xmlCreatePushParserCtxt(&handler, &found, NULL, 0, NULL);
    if (!context) return;
    xmlCtxtUseOptions(context, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    xmlParseChunk(context, document, (int)sizeof document - 1, 1);
    xmlFreeParserCtxt(context);
    ampersand_as_reference = found;
}

/* Turns each "&#38;" of the NUL-ended value at `offset` back into '&' (in place); the value's new length. */
static size_t restore_ampersands(docutil_xml_recorder *r, size_t offset, size_t length) {
    unsigned char *value = r->bytes + offset;
    if (!memchr(value, '&', length)) return length;
    size_t written = 0;
    for (size_t read = 0; read < length;) {
        if (read + 5 <= length && memcmp(value + read, "&#38;", 5) == 0) {
            value[written++] = '&';
            read += 5;
        } else {
            value[written++] = value[read++];
        }
    }
    value[written] = 0;
    r->bytes_used = offset + written + 1;
    return written;
}

static void start_element(void *data, const xmlChar *local, const xmlChar *prefix, const xmlChar *uri,
                          int namespace_count, const xmlChar **namespaces, int attribute_count,
                          int defaulted_count, const xmlChar **attributes) {
    (void)uri;
    (void)namespace_count;
    (void)namespaces;
    (void)defaulted_count;
    docutil_xml_recorder *r = data;
    docutil_xml_event *event = append_event(r, DOCUTIL_XML_ELEMENT);
    if (!event) return;
    event->name = qualified(r, prefix, local);
    event->first_attribute = r->attributes_used;
    if (attribute_count <= 0) return;
    if (!grow((void **)&r->attributes, &r->attributes_capacity, r->attributes_used + (size_t)attribute_count,
              sizeof(docutil_xml_attribute))) {
        r->out_of_memory = 1;
        xmlStopParser((xmlParserCtxtPtr)r->context);
        return;
    }
    for (int i = 0; i < attribute_count; i++) {
        const xmlChar **a = attributes + 5 * i;
        size_t value = append_bytes(r, a[3], (size_t)(a[4] - a[3]));
        if (value == (size_t)-1) return;
        if (ampersand_as_reference) restore_ampersands(r, value, (size_t)(a[4] - a[3]));
        docutil_xml_attribute *attribute = &r->attributes[r->attributes_used++];
        attribute->name = qualified(r, a[1], a[0]);
        attribute->value = value;
        /* append_bytes may have moved the events: take the event again. */
        r->events[r->count - 1].attribute_count++;
    }
}

static void end_element(void *data, const xmlChar *local, const xmlChar *prefix, const xmlChar *uri) {
    (void)uri;
    docutil_xml_recorder *r = data;
    if (r->count > 0) {
        docutil_xml_event *last = &r->events[r->count - 1];
        /* Nothing was recorded since this element started: it is empty. */
        if (last->kind == DOCUTIL_XML_ELEMENT && !last->empty) {
            last->empty = 1;
            return;
        }
    }
    docutil_xml_event *event = append_event(r, DOCUTIL_XML_END_ELEMENT);
    if (event) event->name = qualified(r, prefix, local);
}

static int all_blank(const xmlChar *bytes, size_t length) {
    for (size_t i = 0; i < length; i++) {
        xmlChar c = bytes[i];
        if (c != 0x20 && c != 0x09 && c != 0x0A && c != 0x0D) return 0;
    }
    return 1;
}

static void characters(void *data, const xmlChar *bytes, int length) {
    docutil_xml_recorder *r = data;
    if (length <= 0) return;
    int blank = all_blank(bytes, (size_t)length);
    if (r->count > 0) {
        docutil_xml_event *last = &r->events[r->count - 1];
        if (last->kind == DOCUTIL_XML_TEXT || last->kind == DOCUTIL_XML_WHITESPACE) {
            /* The text is the last thing in the bytes: grow it in place (over its NUL). */
            r->bytes_used -= 1;
            size_t start = last->text;
            if (append_bytes(r, bytes, (size_t)length) == (size_t)-1) return;
            last = &r->events[r->count - 1];
            last->text = start;
            last->text_length += (size_t)length;
            if (!blank) last->kind = DOCUTIL_XML_TEXT;
            return;
        }
    }
    docutil_xml_event *event = append_event(r, blank ? DOCUTIL_XML_WHITESPACE : DOCUTIL_XML_TEXT);
    if (!event) return;
    size_t offset = append_bytes(r, bytes, (size_t)length);
    if (offset == (size_t)-1) return;
    event = &r->events[r->count - 1];
    event->text = offset;
    event->text_length = (size_t)length;
}

static void reference(void *data, const xmlChar *name) {
    docutil_xml_recorder *r = data;
    docutil_xml_event *event = append_event(r, DOCUTIL_XML_ENTITY_REFERENCE);
    if (!event) return;
    size_t length = strlen((const char *)name);
    size_t offset = append_bytes(r, name, length);
    if (offset == (size_t)-1) return;
    event = &r->events[r->count - 1];
    event->text = offset;
    event->text_length = length;
}

static void structured_error(void *data, xmlErrorPtr error) {
    docutil_xml_recorder *r = data;
    if (!error || error->level < XML_ERR_ERROR || r->error_at >= 0) return;
    r->error_at = (long)r->count;
    r->error_line = error->line;
    r->error_message = error->message ? strdup(error->message) : NULL;
}

docutil_xml_recorder *docutil_xml_recorder_new(const char *path, int options) {
    pthread_once(&ampersand_probe, probe_ampersand);
    docutil_xml_recorder *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->error_at = -1;
    xmlSAXHandler handler;
    memset(&handler, 0, sizeof handler);
    handler.initialized = XML_SAX2_MAGIC;
    handler.startElementNs = start_element;
    handler.endElementNs = end_element;
    handler.characters = characters;
    handler.ignorableWhitespace = characters;
    handler.cdataBlock = characters;
    handler.reference = reference;
    handler.serror = structured_error;
    xmlParserCtxtPtr context = xmlCreatePushParserCtxt(&handler, r, NULL, 0, path);
    if (!context) {
        free(r);
        return NULL;
    }
    xmlCtxtUseOptions(context, options);
    r->context = context;
    return r;
}

int docutil_xml_recorder_feed(docutil_xml_recorder *r, const char *bytes, int size, int last) {
    int status = xmlParseChunk((xmlParserCtxtPtr)r->context, bytes, size, last);
    if (status != 0 && r->error_at < 0) {
        /* An error that did not come through the handler. */
        r->error_at = (long)r->count;
        xmlErrorPtr error = xmlCtxtGetLastError(r->context);
        r->error_line = error ? error->line : 0;
        r->error_message = error && error->message ? strdup(error->message) : NULL;
    }
    return status;
}

void docutil_xml_recorder_drop(docutil_xml_recorder *r, size_t keep) {
    if (keep >= r->count) {
        r->count = 0;
        r->attributes_used = 0;
        r->bytes_used = 0;
        if (r->error_at >= 0) r->error_at = 0;
        return;
    }
    size_t bytes_start = r->events[keep].bytes_start;
    /* The attributes of the kept elements are the last ones recorded. */
    size_t first_attribute = r->attributes_used;
    for (size_t i = keep; i < r->count; i++) {
        if (r->events[i].kind == DOCUTIL_XML_ELEMENT) {
            first_attribute = r->events[i].first_attribute;
            break;
        }
    }
    size_t moved = r->count - keep;
    memmove(r->events, r->events + keep, moved * sizeof(docutil_xml_event));
    if (r->bytes_used > bytes_start) memmove(r->bytes, r->bytes + bytes_start, r->bytes_used - bytes_start);
    r->bytes_used -= bytes_start;
    if (r->attributes_used > first_attribute)
        memmove(r->attributes, r->attributes + first_attribute,
                (r->attributes_used - first_attribute) * sizeof(docutil_xml_attribute));
    r->attributes_used -= first_attribute;
    for (size_t i = 0; i < moved; i++) {
        docutil_xml_event *event = &r->events[i];
        event->bytes_start -= bytes_start;
        if (event->kind == DOCUTIL_XML_ELEMENT) event->first_attribute -= first_attribute;
        if (event->kind == DOCUTIL_XML_TEXT || event->kind == DOCUTIL_XML_WHITESPACE ||
            event->kind == DOCUTIL_XML_ENTITY_REFERENCE)
            event->text -= bytes_start;
    }
    for (size_t i = 0; i < r->attributes_used; i++) r->attributes[i].value -= bytes_start;
    r->count = moved;
    if (r->error_at >= 0) r->error_at = r->error_at > (long)keep ? r->error_at - (long)keep : 0;
}

int docutil_xml_recorder_last_is_open(const docutil_xml_recorder *r) {
    if (r->count == 0) return 0;
    const docutil_xml_event *last = &r->events[r->count - 1];
    return (last->kind == DOCUTIL_XML_ELEMENT && !last->empty) || last->kind == DOCUTIL_XML_TEXT ||
           last->kind == DOCUTIL_XML_WHITESPACE;
}

void docutil_xml_recorder_free(docutil_xml_recorder *r) {
    if (!r) return;
    if (r->context) xmlFreeParserCtxt((xmlParserCtxtPtr)r->context);
    free(r->events);
    free(r->attributes);
    free(r->bytes);
    free(r->error_message);
    free(r);
}
