import Foundation
internal import COpenSSL

/// One `EVP_PKEY_CTX` initialised for signing or verifying with a key, reused across calls so that each
/// operation skips OpenSSL 3's context setup (provider lookups, key export to the provider).
///
/// An `EVP_PKEY_CTX` must not be used by two threads at once. The cached context is taken under a lock
/// with `try()`: a caller that finds it busy builds a temporary one instead of waiting, so concurrent
/// callers never serialise on it.
final class KeyOperationContext: @unchecked Sendable {
    enum Operation { case sign, verify }

    private let pkey: OpaquePointer
    private let operation: Operation
    private let lock = NSLock()
    private var cached: OpaquePointer?

    /// `pkey` must outlive this object (its owner keeps both).
    init(pkey: OpaquePointer, operation: Operation) {
        self.pkey = pkey
        self.operation = operation
    }

    deinit {
        if let cached { EVP_PKEY_CTX_free(cached) }
    }

    /// Runs `body` with an initialised context, or returns nil if OpenSSL cannot make one.
    func withContext<R>(_ body: (OpaquePointer) -> R) -> R? {
        if lock.try() {
            defer { lock.unlock() }
            if cached == nil { cached = makeContext() }
            guard let context = cached else { return nil }
            return body(context)
        }
        guard let temporary = makeContext() else { return nil }
        defer { EVP_PKEY_CTX_free(temporary) }
        return body(temporary)
    }

    private func makeContext() -> OpaquePointer? {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, pkey, nil) else { return nil }
        let initialised: Int32
        switch operation {
        case .sign: initialised = EVP_PKEY_sign_init(context)
        case .verify: initialised = EVP_PKEY_verify_init(context)
        }
        guard initialised == 1,
              EVP_PKEY_CTX_set_signature_md(context, FetchedAlgorithms.shared.sha256) == 1 else {
            EVP_PKEY_CTX_free(context)
            return nil
        }
        return context
    }
}
