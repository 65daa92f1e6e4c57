import Foundation

/// Reads a whole (small) key or certificate file.
func readFileBytes(_ path: String) throws -> [UInt8] {
    do {
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    } catch {
        throw CryptoError.fileUnreadable(path: path, reason: (error as NSError).localizedDescription)
    }
}

func pemText(of bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

/// Writes secret material (a private key, a PKCS#12 archive) readable by its owner only (mode 0600).
/// The bytes go to a temporary file beside `path` that is created with that mode, then renamed over
/// `path`: nobody else can read them even for a moment, as they could if the mode were set after
/// writing, and a reader never sees half a file.
public func writeSecretFile(_ bytes: [UInt8], to path: String) throws {
    func failure(_ code: Int32) -> CryptoError {
        CryptoError.fileUnwritable(path: path, reason: String(cString: strerror(code)))
    }
    let temporary = path + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw failure(errno) }
    var code: Int32 = 0
    bytes.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                code = errno
                return
            }
            offset += n
        }
    }
    if code == 0, fsync(fd) != 0 { code = errno }
    close(fd)
    if code == 0, rename(temporary, path) != 0 { code = errno }
    if code != 0 {
        unlink(temporary)
        throw failure(code)
    }
}
