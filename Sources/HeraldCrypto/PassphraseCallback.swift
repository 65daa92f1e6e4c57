internal import COpenSSL
import Glibc

/// A `pem_password_cb` that answers with the NUL-terminated passphrase passed as user data, and refuses
/// (instead of OpenSSL's default: prompting on the terminal) when there is none.
let passphraseCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?) -> Int32 = {
    buffer, size, _, userData in
    guard let buffer, let userData else { return -1 }
    let passphrase = userData.assumingMemoryBound(to: CChar.self)
    let length = strlen(passphrase)
    guard length <= Int(size) else { return -1 }
    memcpy(buffer, passphrase, length)
    return Int32(length)
}

/// Runs `body` with the user-data pointer that `passphraseCallback` expects (nil: no passphrase).
func withPassphrase<R>(_ passphrase: String?, _ body: (UnsafeMutableRawPointer?) throws -> R) rethrows -> R {
    guard let passphrase else { return try body(nil) }
    return try passphrase.withCString { try body(UnsafeMutableRawPointer(mutating: $0)) }
}
