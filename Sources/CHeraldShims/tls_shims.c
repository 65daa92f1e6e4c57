#include "tls_shims.h"
