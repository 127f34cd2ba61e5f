#ifndef OPENCOREDATA_CZLIB_SHIM_H
#define OPENCOREDATA_CZLIB_SHIM_H
#include <zlib.h>
#endif
