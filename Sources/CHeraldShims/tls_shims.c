#include "tls_shims.h"
#include <openssl/err.h>
#include <string.h>

int herald_tls_ctx_set_min_tls12(SSL_CTX *ctx) { return (int)SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION); }

int herald_tls_set_sni(SSL *ssl, const char *host) { return (int)SSL_set_tlsext_host_name(ssl, host); }

static int select_h2(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                     const unsigned char *in, unsigned int inlen, void *arg) {
    (void)ssl; (void)arg;
    static const unsigned char h2[] = {2, 'h', '2'};
    unsigned char *selected = NULL;
    if (SSL_select_next_proto(&selected, outlen, h2, sizeof h2, in, inlen) == OPENSSL_NPN_NEGOTIATED) {
        *out = selected;
        return SSL_TLSEXT_ERR_OK;
    }
    return SSL_TLSEXT_ERR_NOACK;
}

void herald_tls_ctx_enable_alpn_h2_server(SSL_CTX *ctx) { SSL_CTX_set_alpn_select_cb(ctx, select_h2, NULL); }

static int accept_any(int preverify, X509_STORE_CTX *store) { (void)preverify; (void)store; return 1; }

void herald_tls_ctx_request_client_cert(SSL_CTX *ctx) { SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, accept_any); }

int herald_tls_get_alpn(const SSL *ssl, char *out, int cap) {
    const unsigned char *data = NULL;
    unsigned int len = 0;
    SSL_get0_alpn_selected(ssl, &data, &len);
    if (data == NULL || len == 0 || (int)len >= cap) { if (cap > 0) out[0] = 0; return 0; }
    memcpy(out, data, len);
    out[len] = 0;
    return (int)len;
}

X509 *herald_tls_get_peer_certificate(const SSL *ssl) { return SSL_get1_peer_certificate(ssl); }

void herald_tls_last_error(char *out, size_t cap) {
    unsigned long e = ERR_get_error();
    if (e == 0) { if (cap > 0) out[0] = 0; } else { ERR_error_string_n(e, out, cap); }
    ERR_clear_error();
}

long herald_tls_ctx_set_mode_partial_write(SSL_CTX *ctx) {
    return SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
}
