import Foundation
internal import COpenSSL
internal import CHeraldShims

/// One TLS session over a non-blocking socket. Owned by a `StreamConnection` and used on its loop only.
final class TLSSession {
    enum Step { case done(Int), wantRead, wantWrite, closed, failed(String) }

    private let ssl: OpaquePointer
    /// Kept alive with the session: the context's ALPN callback reads bytes the context owns, and a server
    /// whose certificate is replaced lets go of its old context while sessions made from it are open.
    private let context: TLSContext

    init(context: TLSContext, fd: Int32, serverName: String?) throws {
        guard let ssl = SSL_new(context.ctx) else { throw TLSContext.lastError("creating a TLS session") }
        self.ssl = ssl
        self.context = context
        SSL_set_fd(ssl, fd)
        if context.isServer {
            SSL_set_accept_state(ssl)
        } else {
            SSL_set_connect_state(ssl)
            if let name = serverName {
                if Self.isIPAddress(name) {
                    X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), name)
                } else {
                    _ = herald_tls_set_sni(ssl, name)
                    SSL_set1_host(ssl, name)
                }
            }
        }
    }

    deinit { SSL_free(ssl) }

    func handshake() -> Step { classify(SSL_do_handshake(ssl)) }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Step {
        classify(SSL_read(ssl, buffer.baseAddress, Int32(buffer.count)))
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> Step {
        classify(SSL_write(ssl, bytes.baseAddress, Int32(bytes.count)))
    }

    func shutdown() { _ = SSL_shutdown(ssl) }

    /// The protocol chosen through ALPN, if any.
    var alpn: String? {
        var buffer = [CChar](repeating: 0, count: 64)
        let n = herald_tls_get_alpn(ssl, &buffer, Int32(buffer.count))
        return n > 0 ? buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) } : nil
    }

    /// The peer's certificate as DER, if it presented one.
    var peerCertificateDER: [UInt8]? {
        guard let cert = herald_tls_get_peer_certificate(ssl) else { return nil }
        defer { X509_free(cert) }
        var out: UnsafeMutablePointer<UInt8>?
        let n = i2d_X509(cert, &out)
        guard n > 0, let out else { return nil }
        defer { CRYPTO_free(out, #fileID, #line) }
        return Array(UnsafeBufferPointer(start: out, count: Int(n)))
    }

    private func classify(_ rc: Int32) -> Step {
        if rc > 0 { return .done(Int(rc)) }
        let err = SSL_get_error(ssl, rc)
        switch err {
        case SSL_ERROR_WANT_READ: return .wantRead
        case SSL_ERROR_WANT_WRITE: return .wantWrite
        case SSL_ERROR_ZERO_RETURN: return .closed
        case SSL_ERROR_SYSCALL:
            let e = errno
            ERR_clear_error()
            return e == 0 || e == ECONNRESET || e == EPIPE ? .closed : .failed(String(cString: strerror(e)))
        default:
            var message = TLSContext.lastErrorText()
            if message.contains("certificate verify failed") {
                let code = SSL_get_verify_result(ssl)
                message = "certificate verify failed: \(String(cString: X509_verify_cert_error_string(code))); pass the server's CA with --ca"
            }
            return .failed(message)
        }
    }

    private static func isIPAddress(_ s: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, s, &v4) == 1 || inet_pton(AF_INET6, s, &v6) == 1
    }
}
