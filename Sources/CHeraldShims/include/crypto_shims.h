// Wrappers for the OpenSSL 3 macros and inline stack helpers that HeraldCrypto needs and Swift cannot import.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <openssl/bio.h>
#include <openssl/x509.h>

typedef STACK_OF(X509) STACK_OF_X509_herald;

/// BIO_get_mem_data: points *data at the memory BIO's bytes; returns their count.
long herald_crypto_bio_mem_data(BIO *bio, const char **data);

/// OPENSSL_free.
void herald_crypto_free(void *pointer);

/// X509_NAME_print_ex with XN_FLAG_RFC2253 ("CN=...,O=..." most specific first). Returns 1 on success.
int herald_crypto_name_print_rfc2253(BIO *bio, const X509_NAME *name);

/// Adds a config-syntax extension (e.g. "critical,CA:TRUE") to `cert`, resolving key identifiers against
/// `issuer` (pass `cert` itself for a self-signed certificate). Returns 1 on success.
int herald_crypto_x509_add_ext(X509 *cert, X509 *issuer, int nid, const char *value);

/// STACK_OF(X509) helpers (sk_X509_* are inline macros in OpenSSL 3).
STACK_OF_X509_herald *herald_crypto_x509_stack_new(void);
/// Pushes `cert` (taking a reference of its own). Returns 1 on success.
int herald_crypto_x509_stack_push_ref(STACK_OF_X509_herald *stack, X509 *cert);
int herald_crypto_x509_stack_count(const STACK_OF_X509_herald *stack);
/// Borrowed pointer to the element at `index`.
X509 *herald_crypto_x509_stack_value(const STACK_OF_X509_herald *stack, int index);
/// Frees the stack and drops one reference of every element.
void herald_crypto_x509_stack_free_all(STACK_OF_X509_herald *stack);

/// SHA-256 of `length` bytes into `out` (32 bytes), with the context on the stack; returns 1 on success.
/// EVP_Digest makes and frees a context and its provider's state on the heap for every digest: 127 ns against
/// 80 for the 90 bytes of a stable apns-id on this project's machine, for what Herald hashes per request and per
/// delivery (API keys, apns-ids). The low-level functions do not go through OpenSSL's providers, so a FIPS-only
/// provider configuration does not apply to these digests (Herald makes no FIPS claim). Without them (an
/// OpenSSL built with no-deprecated), it falls back to EVP_Digest.
int herald_crypto_sha256(const void *data, size_t length, uint8_t *out);

/// HKDF-SHA256 (RFC 5869) through EVP_KDF. Returns 1 on success.
int herald_crypto_hkdf_sha256(const uint8_t *key, size_t key_len,
                              const uint8_t *salt, size_t salt_len,
                              const uint8_t *info, size_t info_len,
                              uint8_t *out, size_t out_len);

/// Loads the "legacy" provider next to "default" once, so .p12 files protected with RC2/3DES (what older
/// macOS Keychain exports use) can be read. Returns 1 if the legacy provider is available.
int herald_crypto_enable_legacy_algorithms(void);
