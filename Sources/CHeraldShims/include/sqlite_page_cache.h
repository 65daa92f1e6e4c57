#pragma once
// SQLite's default page cache, with the walk it makes at most commits skipped (sqlite_page_cache.c).
#include <sqlite3.h>

/// Installs the page cache over SQLite's default one for every connection the process opens. Takes
/// effect only before SQLite's first use in the process: returns SQLITE_MISUSE after it, harmlessly
/// (connections then use the default cache).
int herald_sqlite_install_page_cache(void);

/// Truncations since the process started that had no page to drop and were not passed on (`skipped`), and
/// those passed on to SQLite's cache (`passed`), over every connection.
void herald_sqlite_page_cache_truncations(unsigned long long *skipped, unsigned long long *passed);
