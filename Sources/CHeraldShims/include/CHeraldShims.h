// Plain C wrappers for what Swift cannot import: function-like macros, variadic functions,
// and Linux headers that the Glibc module does not cover. Names follow `herald_<area>_<function>`.
#ifndef C_HERALD_SHIMS_H
#define C_HERALD_SHIMS_H
#include "io_shims.h"
#include "tls_shims.h"
#include "crypto_shims.h"
#include "sqlite_shims.h"
#include "sqlite_wal_writes.h"
#include "sqlite_page_cache.h"
#endif
