#pragma once
// SQLite's default page cache, with the walk it makes at most commits skipped (sqlite_page_cache.c).
#include <sqlite3.h>

/// Installs the page cache over SQLite's default one for every connection the process opens. Takes
/// effect only before SQLite's first use in the process: returns SQLITE_MISUSE after it, harmlessly
/// (connections then use the default cache). Installing it again is a no-op.
int herald_sqlite_install_page_cache(void);

/// Truncations made on the calling thread that had no page to drop and were not passed on. For tests.
unsigned long long herald_sqlite_page_cache_skipped_truncations(void);

/// For tests: with `on`, every truncation the cache skips is passed on all the same, and counted if it
/// dropped a page after all (`herald_sqlite_page_cache_wrong_skips`, over every thread; 0 while skips are right).
void herald_sqlite_page_cache_verify_skips(int on);
unsigned long long herald_sqlite_page_cache_wrong_skips(void);
