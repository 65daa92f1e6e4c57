#include "tls_shims.h"
#include <openssl/err.h>
#include <string.h>

int herald_tls_ctx_set_min_tls12(SSL_CTX *ctx) { return (int)SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION); }

int herald_tls_set_sni(SSL *ssl, const char *host) { return (int)SSL_set_tlsext_host_name(ssl, host); }

/* `arg` is one byte giving the length of the list that follows: the server's protocols in ALPN wire form
   (each length-prefixed), in its order of preference. The TLSContext that installs the callback owns those
   bytes for as long as the context lives. */
static int select_alpn(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                       const unsigned char *in, unsigned int inlen, void *arg) {
    (void)ssl;
    const unsigned char *server = arg;
    unsigned char *selected = NULL;
    if (SSL_select_next_proto(&selected, outlen, server + 1, server[0], in, inlen) == OPENSSL_NPN_NEGOTIATED) {
        *out = selected;
        return SSL_TLSEXT_ERR_OK;
    }
    return SSL_TLSEXT_ERR_NOACK;
}

void herald_tls_ctx_set_alpn_server(SSL_CTX *ctx, const unsigned char *protocols) {
    SSL_CTX_set_alpn_select_cb(ctx, select_alpn, (void *)protocols);
}

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
