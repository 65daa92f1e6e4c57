import Foundation
import Glibc
import HeraldCrypto
import HeraldIO
import Synchronization

/// The certificate and key `herald serve` terminates TLS with, kept as files: loaded at start, and loaded
/// again when either file changes or when asked (SIGHUP). A change is seen by comparing each file's device,
/// inode, size and modification time every `interval`, following symlinks, so an edit in place, a rename
/// over the file (certbot, cert-manager) and a symlink switched to a new file all count.
///
/// New connections get the new certificate; open ones keep the one they started with. A reload that fails
/// (a half-written file, a key that does not match) keeps the certificate in use and logs why; the files'
/// next change is tried again. Checks and reloads run on one private queue, off Swift's cooperative pool
/// (they read files).
public final class TLSCertificateReloader: Sendable {
    /// The PEM certificate chain (leaf first, then intermediates) and the PEM private key (RSA or EC, not
    /// encrypted). One file may hold both.
    public struct Files: Sendable, Equatable {
        public var certificate: String
        public var key: String

        public init(certificate: String, key: String) {
            self.certificate = certificate
            self.key = key
        }
    }

    /// Why the files cannot be used; says which file (by its configuration key and path) and what is wrong.
    public struct Invalid: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// ALPN: the listener speaks HTTP/1.1 only.
    public static let alpn = ["http/1.1"]

    public let files: Files
    private let log: LogHandler
    private let queue = DispatchQueue(label: "herald.tls-reload")
    private let state: Mutex<State>

    private struct State {
        var identity: CertificateIdentity
        var stamp: Stamp?
        var apply: (@Sendable (TLSServerConfiguration) throws -> Void)?
        var timer: DispatchSourceTimer?
    }

    /// Loads the files; throws `Invalid` if they cannot serve.
    public init(files: Files, log: @escaping LogHandler) throws {
        let stamp = Stamp(files)
        let identity = try Self.load(files)
        self.files = files
        self.log = log
        state = Mutex(State(identity: identity, stamp: stamp))
        Self.warnIfExpired(identity.certificate, log: log)
    }

    /// What the listener starts with: the certificate in use.
    public var configuration: TLSServerConfiguration { TLSServerConfiguration(identity: identity, alpn: Self.alpn) }

    /// The certificate in use and its key.
    public var identity: CertificateIdentity { state.withLock { $0.identity } }

    /// Starts checking the files every `interval` (nil: only on `reload`), handing each new certificate to
    /// `apply` (the listener's `replaceTLS`).
    public func watch(every interval: Duration?, apply: @escaping @Sendable (TLSServerConfiguration) throws -> Void) {
        state.withLock { s in
            s.apply = apply
            guard let interval else { return }
            let source = DispatchSource.makeTimerSource(queue: queue)
            let nanoseconds = Int(interval.components.seconds) * 1_000_000_000 + Int(interval.components.attoseconds / 1_000_000_000)
            source.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds), leeway: .milliseconds(100))
            source.setEventHandler { [weak self] in self?.reloadIfChanged() }
            source.resume()
            s.timer = source
        }
    }

    /// Stops watching the files.
    public func stop() {
        state.withLock { s in
            s.timer?.cancel()
            s.timer = nil
        }
    }

    /// Loads the files now and, if they serve, hands the certificate to the listener; `reason` goes in the
    /// log line (SIGHUP, the files changed). Returns whether the new certificate is in use.
    @discardableResult
    public func reload(reason: String) -> Bool {
        queue.sync { reloadNow(reason: reason) }
    }

    private func reloadIfChanged() {
        let stamp = Stamp(files)
        guard stamp != state.withLock({ $0.stamp }) else { return }
        reloadNow(reason: "the files changed")
    }

    /// On `queue`.
    @discardableResult
    private func reloadNow(reason: String) -> Bool {
        // Taken before reading, so a write that lands during the load is seen at the next check.
        let stamp = Stamp(files)
        let (current, apply) = state.withLock { s in
            s.stamp = stamp
            return (s.identity.certificate, s.apply)
        }
        let kept = "still serving serial \(current.serialNumberHex) (\(current.subject))"
        do {
            let identity = try Self.load(files)
            try apply?(TLSServerConfiguration(identity: identity, alpn: Self.alpn))
            state.withLock { $0.identity = identity }
            let cert = identity.certificate
            log(.info, "TLS certificate reloaded (\(reason)): serial \(cert.serialNumberHex) (\(cert.subject)), valid until \(ISO8601.string(cert.notAfter)); new connections use it")
            Self.warnIfExpired(cert, log: log)
            return true
        } catch {
            log(.error, "TLS certificate not reloaded (\(reason)): \(error); \(kept)")
            return false
        }
    }

    private static func warnIfExpired(_ certificate: Certificate, log: LogHandler) {
        if certificate.notAfter < Date() {
            log(.warning, "the TLS certificate \(certificate.subject) expired at \(ISO8601.string(certificate.notAfter)); clients will refuse it until it is renewed")
        }
    }

    /// Reads and checks both files: errors name the file and say what to do.
    static func load(_ files: Files) throws -> CertificateIdentity {
        let certificateText = try read(files.certificate, key: "http.tlsCertificate")
        let keyText = files.key == files.certificate ? certificateText : try read(files.key, key: "http.tlsKey")
        let certificates: [Certificate]
        do { certificates = try Certificate.loadAll(pem: certificateText) } catch {
            throw Invalid(description: "http.tlsCertificate \(files.certificate): \(error)")
        }
        guard !certificates.isEmpty else {
            throw Invalid(description: "http.tlsCertificate \(files.certificate): no certificate in it; expected PEM '-----BEGIN CERTIFICATE-----' blocks, the server's certificate first, then its intermediates")
        }
        let key: PrivateKey
        do { key = try PrivateKey(pem: keyText) } catch CryptoError.passphraseRequired {
            throw Invalid(description: "http.tlsKey \(files.key): the key is encrypted; herald serve cannot ask for a passphrase, so give it the key unencrypted (openssl pkey -in KEY -out KEY.plain) with mode 0600")
        } catch {
            throw Invalid(description: "http.tlsKey \(files.key): \(error)")
        }
        // The leaf is the certificate that matches the key; usually the first, but order is forgiven.
        guard let leaf = certificates.firstIndex(where: key.matches) else {
            throw Invalid(description: "http.tlsKey \(files.key) does not match the certificate in http.tlsCertificate \(files.certificate) (\(certificates[0].subject)); give the key the certificate was issued for")
        }
        var chain = certificates
        let certificate = chain.remove(at: leaf)
        do { return try CertificateIdentity(privateKey: key, certificate: certificate, chain: chain) } catch {
            throw Invalid(description: "http.tlsKey \(files.key): \(error)")
        }
    }

    private static func read(_ path: String, key: String) throws -> String {
        guard FileManager.default.fileExists(atPath: path) else { throw Invalid(description: "\(key) \(path): no such file") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Invalid(description: "\(key) \(path): cannot be read; check its permissions (herald serve runs as uid \(getuid()))")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// What identifies a version of the two files (stat, following symlinks); nil parts for missing files.
    private struct Stamp: Equatable {
        var certificate: [Int]?
        var key: [Int]?

        init(_ files: Files) {
            certificate = Self.identity(of: files.certificate)
            key = Self.identity(of: files.key)
        }

        private static func identity(of path: String) -> [Int]? {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            return [Int(info.st_dev), Int(info.st_ino), Int(info.st_size), info.st_mtim.tv_sec, info.st_mtim.tv_nsec]
        }
    }
}
