#include "crypto_shims.h"
