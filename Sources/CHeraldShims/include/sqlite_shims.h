#pragma once
// SQLite wrappers for what Swift cannot import: SQLITE_TRANSIENT is a cast macro, sqlite3_config variadic.
#include <sqlite3.h>

/// Binds text that SQLite copies at once (SQLITE_TRANSIENT), so the Swift buffer may go away after the call.
int herald_sqlite_bind_text(sqlite3_stmt *stmt, int index, const char *text, int length);
/// Binds a blob that SQLite copies at once (SQLITE_TRANSIENT).
int herald_sqlite_bind_blob(sqlite3_stmt *stmt, int index, const void *bytes, int length);
/// Turns off SQLite's count of the memory it holds: with it, every allocation takes a global mutex, and
/// Herald never reads the count. Takes effect only before SQLite's first use in the process (returns
/// SQLITE_MISUSE after it, harmlessly).
int herald_sqlite_disable_memory_status(void);
