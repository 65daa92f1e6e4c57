#include "io_shims.h"
