// Nothing to import: this target only defines `malloc_conf`, which jemalloc reads when the process starts
// (see jemalloc_settings.c). The header exists because a C target needs one.
#ifndef C_JEMALLOC_SETTINGS_H
#define C_JEMALLOC_SETTINGS_H
#endif
