#include "sqlite_shims.h"
