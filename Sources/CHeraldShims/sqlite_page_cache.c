#include "sqlite_page_cache.h"
#include <stdatomic.h>

// At the end of every transaction SQLite asks its page cache to drop the pages past the database's end
// (`xTruncate`). The default cache (pcache1) keeps the largest page number it has held since its last
// truncation, and when that is far past the end it walks its whole hash table. It nearly always is: when
// a B-tree split leaves its new pages out of order, SQLite swaps their numbers through a parking number,
// the pending-byte page (262,145 at 4 KiB pages; btree.c, `balance_nonroot`), whatever the file's size.
// That page never holds data (the file locks live in its bytes), so no page stays there. Random device
// tokens split an index page in most registration groups, so most commits walked every bucket and page of
// the writer's cache for nothing: the parked page had moved back long before (docs/performance.md,
// "Round 19").
//
// This cache is pcache1 with its own bound: the largest page number fetched or moved to since the last
// truncation, a move to the parking number aside (those pages are counted while parked). A truncation
// whose limit is past that bound and finds no page parked has no page to drop, and is not passed on.
// Every other call goes to pcache1 unchanged, and a truncation that may drop something is passed on
// whole (pcache1 then walks its table as before, once). Tests can have every skipped truncation passed on
// as well and counted if it dropped a page (`herald_sqlite_page_cache_verify_skips`).

typedef struct HeraldPageCache {
    sqlite3_pcache *inner;
    unsigned int largestKey;   // every page in the cache, the parked aside, has a number up to this
    unsigned int parkingKey;   // where balance_nonroot parks a page while it swaps numbers
    int parked;                // pages at `parkingKey` now
} HeraldPageCache;

static sqlite3_pcache_methods2 pcache1;
// A count for tests, per thread so that a test sees only its own connections' (each runs on its caller's).
static _Thread_local unsigned long long truncationsSkipped;
static atomic_int verifyingSkips;
static atomic_ullong wrongSkips;

// SQLite's PENDING_BYTE: the 1 GiB offset whose page no data may use (sqliteInt.h); with pages numbered
// from 1 that page is `PENDING_BYTE/pageSize + 1`, the parking number in balance_nonroot.
#define HERALD_PENDING_BYTE 0x40000000u

static int cacheInit(void *arg) {
    (void)arg;
    return pcache1.xInit ? pcache1.xInit(pcache1.pArg) : SQLITE_OK;
}

static void cacheShutdown(void *arg) {
    (void)arg;
    if (pcache1.xShutdown) pcache1.xShutdown(pcache1.pArg);
}

static sqlite3_pcache *cacheCreate(int pageSize, int extraSize, int purgeable) {
    HeraldPageCache *cache = sqlite3_malloc(sizeof *cache);
    if (!cache) return 0;
    cache->inner = pcache1.xCreate(pageSize, extraSize, purgeable);
    if (!cache->inner) {
        sqlite3_free(cache);
        return 0;
    }
    cache->largestKey = 0;
    cache->parkingKey = HERALD_PENDING_BYTE / (unsigned int)pageSize + 1;
    cache->parked = 0;
    return (sqlite3_pcache *)cache;
}

static void cacheCachesize(sqlite3_pcache *p, int pages) {
    pcache1.xCachesize(((HeraldPageCache *)p)->inner, pages);
}

static int cachePagecount(sqlite3_pcache *p) {
    return pcache1.xPagecount(((HeraldPageCache *)p)->inner);
}

static sqlite3_pcache_page *cacheFetch(sqlite3_pcache *p, unsigned int key, int create) {
    HeraldPageCache *cache = (HeraldPageCache *)p;
    sqlite3_pcache_page *page = pcache1.xFetch(cache->inner, key, create);
    if (page && key > cache->largestKey) cache->largestKey = key;
    return page;
}

static void cacheUnpin(sqlite3_pcache *p, sqlite3_pcache_page *page, int discard) {
    pcache1.xUnpin(((HeraldPageCache *)p)->inner, page, discard);
}

static void cacheRekey(sqlite3_pcache *p, sqlite3_pcache_page *page, unsigned int oldKey, unsigned int newKey) {
    HeraldPageCache *cache = (HeraldPageCache *)p;
    pcache1.xRekey(cache->inner, page, oldKey, newKey);
    if (oldKey == cache->parkingKey) cache->parked--;
    if (newKey == cache->parkingKey) cache->parked++;
    else if (newKey > cache->largestKey) cache->largestKey = newKey;
}

static void cacheTruncate(sqlite3_pcache *p, unsigned int limit) {
    HeraldPageCache *cache = (HeraldPageCache *)p;
    if (limit > cache->largestKey && cache->parked == 0) {   // no page numbered `limit` or more
        truncationsSkipped++;
        if (atomic_load_explicit(&verifyingSkips, memory_order_relaxed)) {
            int before = pcache1.xPagecount(cache->inner);
            pcache1.xTruncate(cache->inner, limit);
            if (pcache1.xPagecount(cache->inner) != before) atomic_fetch_add_explicit(&wrongSkips, 1, memory_order_relaxed);
        }
        return;
    }
    pcache1.xTruncate(cache->inner, limit);
    // SQLite truncates at a page number plus one (pcache.c), so `limit` is at least 1.
    if (limit - 1 < cache->largestKey) cache->largestKey = limit - 1;
    if (limit <= cache->parkingKey) cache->parked = 0;
}

static void cacheDestroy(sqlite3_pcache *p) {
    HeraldPageCache *cache = (HeraldPageCache *)p;
    pcache1.xDestroy(cache->inner);
    sqlite3_free(cache);
}

static void cacheShrink(sqlite3_pcache *p) {
    pcache1.xShrink(((HeraldPageCache *)p)->inner);
}

int herald_sqlite_install_page_cache(void) {
    sqlite3_pcache_methods2 current;
    int rc = sqlite3_config(SQLITE_CONFIG_GETPCACHE2, &current);
    if (rc != SQLITE_OK) return rc;
    if (current.xTruncate == cacheTruncate) return SQLITE_OK;   // installed already: wrapping it again would recurse
    if (current.iVersion < 1 || !current.xCreate || !current.xRekey || !current.xTruncate) return SQLITE_ERROR;
    pcache1 = current;
    sqlite3_pcache_methods2 methods = {
        .iVersion = 1,
        .pArg = 0,
        .xInit = cacheInit,
        .xShutdown = cacheShutdown,
        .xCreate = cacheCreate,
        .xCachesize = cacheCachesize,
        .xPagecount = cachePagecount,
        .xFetch = cacheFetch,
        .xUnpin = cacheUnpin,
        .xRekey = cacheRekey,
        .xTruncate = cacheTruncate,
        .xDestroy = cacheDestroy,
        .xShrink = cacheShrink,
    };
    return sqlite3_config(SQLITE_CONFIG_PCACHE2, &methods);
}

unsigned long long herald_sqlite_page_cache_skipped_truncations(void) {
    return truncationsSkipped;
}

void herald_sqlite_page_cache_verify_skips(int on) {
    atomic_store_explicit(&verifyingSkips, on, memory_order_relaxed);
}

unsigned long long herald_sqlite_page_cache_wrong_skips(void) {
    return atomic_load_explicit(&wrongSkips, memory_order_relaxed);
}
