#include "sqlite_wal_writes.h"
#include <string.h>

// SQLite appends a commit to the WAL as two writes per page: the frame's 24-byte header, then the page.
// A group of registrations commits ~20 pages, so ~40 `pwrite` calls, each paying the kernel's per-call
// costs (the file's lock, its times, the page cache's bookkeeping) once more; they were a tenth of a
// registration's server CPU, all of it on the one writer every commit waits for (docs/performance.md,
// "Round 8"). This VFS passes every file to the default VFS unchanged except WAL files, whose contiguous
// writes it gathers in memory and writes at once:
//
// - when the page of a commit frame arrives (a frame header whose "database size after commit" field is
//   set; only commit frames carry it), so a commit's frames are in the kernel before SQLite marks them
//   committed in the WAL index, where other connections look: a killed process loses nothing committed;
// - before any other use of the file (read, sync, truncate, size, file control, close), so SQLite never
//   observes the file without what it wrote;
// - when a write is not contiguous with what is gathered (SQLite rewriting a frame of the same
//   transaction), or the gathered bytes would pass `HERALD_WAL_GATHER_LIMIT`;
// - and a write that follows a read of the file is not gathered at all (see `walWrite`).
//
// A failed gathered write fails the call that triggered it (the commit frame's write, a sync), with the
// default VFS's own code (SQLITE_FULL on a full disk), so the transaction fails as it would have.

// The default (unix) VFS writes at most 128 KiB - 1 per call: it masks a larger size to its low 17 bits
// and reports the short write as a full disk. SQLite's own writes are a page at most (64 KiB).
#define HERALD_WAL_GATHER_LIMIT 0x1ffff
#define WAL_HEADER_BYTES 32
#define WAL_FRAME_HEADER_BYTES 24

typedef struct HeraldWALFile {
    sqlite3_file base;            // base.pMethods == &herald_wal_methods
    sqlite3_file *real;           // the default VFS's file, in the same allocation just after this struct
    unsigned char *gathered;      // bytes not yet written, for the file's offsets [start, start + length)
    int length;
    int capacity;
    sqlite3_int64 start;
    int commitPageNext;           // the last write was a commit frame's header: its page comes next
    int readSinceWrite;           // the file was read after the last write
} HeraldWALFile;

static sqlite3_vfs herald_vfs;
const char *const herald_sqlite_vfs_name = "herald";

static int flush(HeraldWALFile *f) {
    if (f->length == 0) return SQLITE_OK;
    int length = f->length;
    f->length = 0;   // written or failed, the bytes go: SQLite writes a failed transaction's frames anew
    f->commitPageNext = 0;
    return f->real->pMethods->xWrite(f->real, f->gathered, length, f->start);
}

static int isCommitFrameHeader(const void *bytes, int amount, sqlite3_int64 offset) {
    if (amount != WAL_FRAME_HEADER_BYTES || offset < WAL_HEADER_BYTES) return 0;
    const unsigned char *h = bytes;
    return (h[4] | h[5] | h[6] | h[7]) != 0;   // big-endian database size after the commit; 0 otherwise
}

// Writes `bytes` at once, remembering whether they were a commit frame's header (then the page that follows
// is flushed as soon as it is gathered).
static int writeThrough(HeraldWALFile *f, const void *bytes, int amount, sqlite3_int64 offset) {
    f->commitPageNext = isCommitFrameHeader(bytes, amount, offset);
    return f->real->pMethods->xWrite(f->real, bytes, amount, offset);
}

static int walWrite(sqlite3_file *file, const void *bytes, int amount, sqlite3_int64 offset) {
    HeraldWALFile *f = (HeraldWALFile *)file;
    int rc;
    int commitPage = f->commitPageNext;   // read first: a flush below forgets it
    int afterRead = f->readSinceWrite;
    f->readSinceWrite = 0;
    if (f->length > 0 && (afterRead || offset != f->start + f->length || f->length + amount > HERALD_WAL_GATHER_LIMIT)) {
        if ((rc = flush(f)) != SQLITE_OK) return rc;
    }
    // After a read, SQLite is rewriting a frame's header it just read back (new checksums, at the end of a
    // commit that overwrote pages of its own transaction); nothing may follow to flush it.
    if (afterRead || amount > HERALD_WAL_GATHER_LIMIT) return writeThrough(f, bytes, amount, offset);
    if (f->length + amount > f->capacity) {
        int capacity = f->capacity ? f->capacity : 64 * 1024;
        while (capacity < f->length + amount) capacity *= 2;
        unsigned char *grown = sqlite3_realloc(f->gathered, capacity);
        if (!grown) {
            if ((rc = flush(f)) != SQLITE_OK) return rc;
            return writeThrough(f, bytes, amount, offset);
        }
        f->gathered = grown;
        f->capacity = capacity;
    }
    if (f->length == 0) f->start = offset;
    memcpy(f->gathered + f->length, bytes, (size_t)amount);
    f->length += amount;
    if (commitPage) return flush(f);
    f->commitPageNext = isCommitFrameHeader(bytes, amount, offset);
    return SQLITE_OK;
}

static int walClose(sqlite3_file *file) {
    HeraldWALFile *f = (HeraldWALFile *)file;
    int rc = flush(f);
    int closed = f->real->pMethods->xClose(f->real);
    sqlite3_free(f->gathered);
    f->gathered = NULL;
    f->capacity = 0;
    return rc != SQLITE_OK ? rc : closed;
}

static int walRead(sqlite3_file *file, void *bytes, int amount, sqlite3_int64 offset) {
    HeraldWALFile *f = (HeraldWALFile *)file;
    int rc = flush(f);
    f->readSinceWrite = 1;
    return rc != SQLITE_OK ? rc : f->real->pMethods->xRead(f->real, bytes, amount, offset);
}

static int walTruncate(sqlite3_file *file, sqlite3_int64 size) {
    HeraldWALFile *f = (HeraldWALFile *)file;
    int rc = flush(f);
    return rc != SQLITE_OK ? rc : f->real->pMethods->xTruncate(f->real, size);
}

static int walSync(sqlite3_file *file, int flags) {
    HeraldWALFile *f = (HeraldWALFile *)file;
    int rc = flush(f);
    return rc != SQLITE_OK ? rc : f->real->pMethods->xSync(f->real, flags);
}

static int walFileSize(sqlite3_file *file, sqlite3_int64 *size) {
    HeraldWALFile *f = (HeraldWALFile *)file;
    int rc = flush(f);
    return rc != SQLITE_OK ? rc : f->real->pMethods->xFileSize(f->real, size);
}

static int walLock(sqlite3_file *file, int level) {
    HeraldWALFile *f = (HeraldWALFile *)file;
    return f->real->pMethods->xLock(f->real, level);
}

static int walUnlock(sqlite3_file *file, int level) {
    HeraldWALFile *f = (HeraldWALFile *)file;
    return f->real->pMethods->xUnlock(f->real, level);
}

static int walCheckReservedLock(sqlite3_file *file, int *reserved) {
    HeraldWALFile *f = (HeraldWALFile *)file;
    return f->real->pMethods->xCheckReservedLock(f->real, reserved);
}

static int walFileControl(sqlite3_file *file, int op, void *argument) {
    HeraldWALFile *f = (HeraldWALFile *)file;
    int rc = flush(f);
    return rc != SQLITE_OK ? rc : f->real->pMethods->xFileControl(f->real, op, argument);
}

static int walSectorSize(sqlite3_file *file) {
    HeraldWALFile *f = (HeraldWALFile *)file;
    return f->real->pMethods->xSectorSize(f->real);
}

static int walDeviceCharacteristics(sqlite3_file *file) {
    HeraldWALFile *f = (HeraldWALFile *)file;
    return f->real->pMethods->xDeviceCharacteristics(f->real);
}

// Version 1: a WAL file is never memory-mapped and has no shared memory of its own (that is the database's).
static const sqlite3_io_methods herald_wal_methods = {
    1, walClose, walRead, walWrite, walTruncate, walSync, walFileSize, walLock, walUnlock,
    walCheckReservedLock, walFileControl, walSectorSize, walDeviceCharacteristics,
    NULL, NULL, NULL, NULL, NULL, NULL,
};

static int vfsOpen(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *file, int flags, int *outFlags) {
    sqlite3_vfs *real = vfs->pAppData;
    if (!(flags & SQLITE_OPEN_WAL)) return real->xOpen(real, name, file, flags, outFlags);
    HeraldWALFile *f = (HeraldWALFile *)file;
    memset(f, 0, sizeof *f);
    f->real = (sqlite3_file *)(f + 1);
    int rc = real->xOpen(real, name, f->real, flags, outFlags);
    if (rc != SQLITE_OK) {
        if (f->real->pMethods) f->real->pMethods->xClose(f->real);
        return rc;   // base.pMethods stays NULL: SQLite does not close a file that failed to open
    }
    f->base.pMethods = &herald_wal_methods;
    return SQLITE_OK;
}

static int vfsDelete(sqlite3_vfs *vfs, const char *name, int syncDirectory) {
    sqlite3_vfs *real = vfs->pAppData;
    return real->xDelete(real, name, syncDirectory);
}

static int vfsAccess(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    sqlite3_vfs *real = vfs->pAppData;
    return real->xAccess(real, name, flags, result);
}

static int vfsFullPathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    sqlite3_vfs *real = vfs->pAppData;
    return real->xFullPathname(real, name, size, out);
}

static void *vfsDlOpen(sqlite3_vfs *vfs, const char *name) {
    sqlite3_vfs *real = vfs->pAppData;
    return real->xDlOpen(real, name);
}

static void vfsDlError(sqlite3_vfs *vfs, int size, char *message) {
    sqlite3_vfs *real = vfs->pAppData;
    real->xDlError(real, size, message);
}

static void (*vfsDlSym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) {
    sqlite3_vfs *real = vfs->pAppData;
    return real->xDlSym(real, handle, symbol);
}

static void vfsDlClose(sqlite3_vfs *vfs, void *handle) {
    sqlite3_vfs *real = vfs->pAppData;
    real->xDlClose(real, handle);
}

static int vfsRandomness(sqlite3_vfs *vfs, int size, char *out) {
    sqlite3_vfs *real = vfs->pAppData;
    return real->xRandomness(real, size, out);
}

static int vfsSleep(sqlite3_vfs *vfs, int microseconds) {
    sqlite3_vfs *real = vfs->pAppData;
    return real->xSleep(real, microseconds);
}

static int vfsCurrentTime(sqlite3_vfs *vfs, double *now) {
    sqlite3_vfs *real = vfs->pAppData;
    return real->xCurrentTime(real, now);
}

static int vfsGetLastError(sqlite3_vfs *vfs, int size, char *message) {
    sqlite3_vfs *real = vfs->pAppData;
    return real->xGetLastError ? real->xGetLastError(real, size, message) : 0;
}

static int vfsCurrentTimeInt64(sqlite3_vfs *vfs, sqlite3_int64 *now) {
    sqlite3_vfs *real = vfs->pAppData;
    if (real->iVersion >= 2 && real->xCurrentTimeInt64) return real->xCurrentTimeInt64(real, now);
    double days;
    int rc = real->xCurrentTime(real, &days);
    *now = (sqlite3_int64)(days * 86400000.0);
    return rc;
}

int herald_sqlite_register_vfs(void) {
    if (sqlite3_vfs_find(herald_sqlite_vfs_name)) return SQLITE_OK;
    sqlite3_vfs *real = sqlite3_vfs_find(NULL);
    if (!real) return SQLITE_ERROR;
    herald_vfs = (sqlite3_vfs){
        .iVersion = 2,
        .szOsFile = (int)sizeof(HeraldWALFile) + real->szOsFile,
        .mxPathname = real->mxPathname,
        .zName = herald_sqlite_vfs_name,
        .pAppData = real,
        .xOpen = vfsOpen,
        .xDelete = vfsDelete,
        .xAccess = vfsAccess,
        .xFullPathname = vfsFullPathname,
        .xDlOpen = vfsDlOpen,
        .xDlError = vfsDlError,
        .xDlSym = vfsDlSym,
        .xDlClose = vfsDlClose,
        .xRandomness = vfsRandomness,
        .xSleep = vfsSleep,
        .xCurrentTime = vfsCurrentTime,
        .xGetLastError = vfsGetLastError,
        .xCurrentTimeInt64 = vfsCurrentTimeInt64,
    };
    return sqlite3_vfs_register(&herald_vfs, 0);
}
