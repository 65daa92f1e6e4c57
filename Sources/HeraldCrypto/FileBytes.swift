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
