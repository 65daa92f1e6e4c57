#include "CJemallocSettings.h"

/* jemalloc's settings for the `herald` executable, read once at the process's first allocation (jemalloc
   looks for this symbol in the executable; `MALLOC_CONF` in the environment still overrides each option).

   - percpu_arena:percpu: one arena per CPU instead of jemalloc's default of four per CPU. Swift allocates
     on one thread and frees on another (a batch parsed on the cooperative pool, written by the store's
     thread), and every arena keeps its own freed pages, so memory at rest and at peak grew with the number
     of arenas that had been touched: an import of 3,000,000 installations peaked at 158 MiB with the
     defaults and at 108 MiB with this, at the same rate; a fan-out of 10,000,000 at 85 MiB instead of 93.
   - dirty_decay_ms:1000: freed pages go back to the kernel after about a second, not ten.
   - muzzy_decay_ms:0: and then for good (MADV_DONTNEED). Pages given back lazily (MADV_FREE) still count
     in the resident set until the kernel needs them, so they would look like memory held.
   Measured in docs/performance.md, "jemalloc's arenas". */
const char *malloc_conf = "percpu_arena:percpu,dirty_decay_ms:1000,muzzy_decay_ms:0";
