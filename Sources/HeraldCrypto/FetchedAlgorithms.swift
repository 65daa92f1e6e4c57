internal import COpenSSL

/// Algorithm implementations fetched once from the default provider. OpenSSL 3 otherwise looks them up
/// again on every `EVP_sha256()`-style call, which shows on hot paths.
///
/// `@unchecked Sendable`: fetched EVP_MD / EVP_CIPHER objects are immutable and documented as safe to share
/// between threads; they live for the whole process.
final class FetchedAlgorithms: @unchecked Sendable {
    static let shared = FetchedAlgorithms()

    let sha256: OpaquePointer
    let aes256GCM: OpaquePointer

    private init() {
        guard let sha256 = EVP_MD_fetch(nil, "SHA256", nil),
              let aes256GCM = EVP_CIPHER_fetch(nil, "AES-256-GCM", nil) else {
            fatalError("OpenSSL's default provider lacks SHA256 or AES-256-GCM: \(drainOpenSSLErrors())")
        }
        self.sha256 = sha256
        self.aes256GCM = aes256GCM
    }
}
