import APNSCore
import Foundation

/// UUIDv5-style apns-id from (push id, installation id): the same delivery always carries the same id.
/// Computed for every delivery of a fan-out, and kept as a UUID: it is formatted only where it is shown.
func stableAPNsID(pushID: String, installationID: String, crypto: any ServerCrypto) -> UUID {
    var input: [UInt8] = []
    input.reserveCapacity(16 + pushID.utf8.count + installationID.utf8.count)
    input += "herald:apns-id:".utf8
    input += pushID.utf8
    input.append(UInt8(ascii: ":"))
    input += installationID.utf8
    var b = crypto.sha256(input)
    b[6] = (b[6] & 0x0f) | 0x50
    b[8] = (b[8] & 0x3f) | 0x80
    let uuid = b.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }
    return UUID(uuid: uuid)
}
