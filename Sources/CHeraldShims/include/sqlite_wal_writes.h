#pragma once
// A VFS that writes each SQLite commit's WAL frames with one system call (sqlite_wal_writes.c).
#include <sqlite3.h>

/// The VFS's name, for sqlite3_open_v2.
extern const char *const herald_sqlite_vfs_name;

/// Registers the VFS (not as the default) over the process's default one. Idempotent; call before opening
/// a connection with `herald_sqlite_vfs_name`. Returns SQLITE_OK, or SQLITE_ERROR without a default VFS.
int herald_sqlite_register_vfs(void);
