#pragma once
// SQLite wrappers for what Swift cannot import: SQLITE_TRANSIENT is a cast macro.
#include <sqlite3.h>

/// Binds text that SQLite copies at once (SQLITE_TRANSIENT), so the Swift buffer may go away after the call.
int herald_sqlite_bind_text(sqlite3_stmt *stmt, int index, const char *text, int length);
/// Binds a blob that SQLite copies at once (SQLITE_TRANSIENT).
int herald_sqlite_bind_blob(sqlite3_stmt *stmt, int index, const void *bytes, int length);
