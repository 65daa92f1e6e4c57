#pragma once
// OpenSSL macros and callbacks the TLS layer needs, as real functions.
#include <openssl/ssl.h>

int herald_tls_ctx_set_min_tls12(SSL_CTX *ctx);
int herald_tls_set_sni(SSL *ssl, const char *host);
/// Server side: select the first of the server's protocols the client offers through ALPN (a client that
/// offers none of them, or no ALPN, is accepted without one: APNs clients may speak HTTP/2 with prior
/// knowledge). `protocols`: one byte with the length of the wire-form list that follows; it must outlive `ctx`.
void herald_tls_ctx_set_alpn_server(SSL_CTX *ctx, const unsigned char *protocols);
/// Server side: ask for a client certificate but do not require one, and accept any chain at the TLS
/// level; the application inspects the certificate (so one port serves token and certificate auth).
void herald_tls_ctx_request_client_cert(SSL_CTX *ctx);
/// The negotiated ALPN protocol copied into `out` (NUL-terminated); returns its length or 0.
int herald_tls_get_alpn(const SSL *ssl, char *out, int cap);
/// The peer certificate (caller owns the reference) or NULL.
X509 *herald_tls_get_peer_certificate(const SSL *ssl);
/// The oldest error on the OpenSSL error queue as text, clearing the queue.
void herald_tls_last_error(char *out, size_t cap);
long herald_tls_ctx_set_mode_partial_write(SSL_CTX *ctx);
