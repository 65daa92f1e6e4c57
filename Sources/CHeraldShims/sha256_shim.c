// SHA-256's low-level functions are deprecated in OpenSSL 3 (in favour of EVP), not removed. Only this file
// uses them, so only here are deprecation warnings turned off.
#define OPENSSL_SUPPRESS_DEPRECATED
#include "crypto_shims.h"

#include <openssl/evp.h>
#include <openssl/sha.h>

int herald_crypto_sha256(const void *data, size_t length, uint8_t *out) {
#ifndef OPENSSL_NO_DEPRECATED_3_0
    SHA256_CTX context;
    int ok = SHA256_Init(&context) == 1 && SHA256_Update(&context, data, length) == 1 && SHA256_Final(out, &context) == 1;
    OPENSSL_cleanse(&context, sizeof context);
    return ok ? 1 : 0;
#else
    unsigned int written = 0;
    return EVP_Digest(data, length, out, &written, EVP_sha256(), NULL) == 1 && written == 32 ? 1 : 0;
#endif
}
