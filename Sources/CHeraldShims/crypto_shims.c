#include "crypto_shims.h"

#include <openssl/bio.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/provider.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <pthread.h>

long herald_crypto_bio_mem_data(BIO *bio, const char **data) {
    char *pointer = NULL;
    long length = BIO_get_mem_data(bio, &pointer);
    *data = pointer;
    return length;
}

void herald_crypto_free(void *pointer) { OPENSSL_free(pointer); }

int herald_crypto_name_print_rfc2253(BIO *bio, const X509_NAME *name) {
    return X509_NAME_print_ex(bio, name, 0, XN_FLAG_RFC2253) >= 0 ? 1 : 0;
}

int herald_crypto_x509_add_ext(X509 *cert, X509 *issuer, int nid, const char *value) {
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, cert, NULL, NULL, 0);
    X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
    if (ext == NULL) return 0;
    int ok = X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
    return ok == 1 ? 1 : 0;
}

STACK_OF_X509_herald *herald_crypto_x509_stack_new(void) {
    return (STACK_OF_X509_herald *)sk_X509_new_null();
}

int herald_crypto_x509_stack_push_ref(STACK_OF_X509_herald *stack, X509 *cert) {
    if (X509_up_ref(cert) != 1) return 0;
    if (sk_X509_push((STACK_OF(X509) *)stack, cert) <= 0) {
        X509_free(cert);
        return 0;
    }
    return 1;
}

int herald_crypto_x509_stack_count(const STACK_OF_X509_herald *stack) {
    return stack == NULL ? 0 : sk_X509_num((const STACK_OF(X509) *)stack);
}

X509 *herald_crypto_x509_stack_value(const STACK_OF_X509_herald *stack, int index) {
    return sk_X509_value((const STACK_OF(X509) *)stack, index);
}

void herald_crypto_x509_stack_free_all(STACK_OF_X509_herald *stack) {
    sk_X509_pop_free((STACK_OF(X509) *)stack, X509_free);
}

int herald_crypto_hkdf_sha256(const uint8_t *key, size_t key_len,
                              const uint8_t *salt, size_t salt_len,
                              const uint8_t *info, size_t info_len,
                              uint8_t *out, size_t out_len) {
    EVP_KDF *kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
    if (kdf == NULL) return 0;
    EVP_KDF_CTX *ctx = EVP_KDF_CTX_new(kdf);
    EVP_KDF_free(kdf);
    if (ctx == NULL) return 0;
    OSSL_PARAM params[5];
    size_t n = 0;
    params[n++] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)"SHA256", 0);
    params[n++] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)key, key_len);
    params[n++] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, (void *)salt, salt_len);
    params[n++] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, (void *)info, info_len);
    params[n] = OSSL_PARAM_construct_end();
    int ok = EVP_KDF_derive(ctx, out, out_len, params) == 1;
    EVP_KDF_CTX_free(ctx);
    return ok ? 1 : 0;
}

static int legacy_available = 0;
static pthread_once_t legacy_once = PTHREAD_ONCE_INIT;

static void load_legacy(void) {
    // Loading any provider explicitly disables the implicit default one, so load both.
    OSSL_PROVIDER *legacy = OSSL_PROVIDER_load(NULL, "legacy");
    OSSL_PROVIDER *fallback = OSSL_PROVIDER_load(NULL, "default");
    legacy_available = (legacy != NULL && fallback != NULL);
    ERR_clear_error();
}

int herald_crypto_enable_legacy_algorithms(void) {
    pthread_once(&legacy_once, load_legacy);
    return legacy_available;
}

/* OpenSSL frees its global state (locks, providers, error tables) in an atexit handler by default. A
   process that exits while another thread is still inside OpenSSL (a TLS connection closing or a token
   being signed as `herald serve` stops, a test run ending while a server it started is stopping) then
   crashes in freed memory: seen as SIGSEGV in pthread_rwlock_rdlock and as "OpenSSL could not write a
   public key" after a test run had passed. The kernel reclaims that state at exit anyway, so it is left
   alone. This must be OpenSSL's first initialisation to take effect, hence a load-time constructor. */
__attribute__((constructor)) static void herald_crypto_keep_state_until_exit(void) {
    OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
}
