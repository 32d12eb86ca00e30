#ifndef DOCUTIL_CSQLITE_SHIM_H
#define DOCUTIL_CSQLITE_SHIM_H
#include <sqlite3.h>
#endif
