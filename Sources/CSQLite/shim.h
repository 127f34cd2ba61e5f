#ifndef OPENCOREDATA_CSQLITE_SHIM_H
#define OPENCOREDATA_CSQLITE_SHIM_H
#include <sqlite3.h>
#endif
