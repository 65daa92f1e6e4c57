import APNSCore
import Foundation
import HeraldCrypto

/// UUIDv5-style apns-id from (push id, installation id): the same delivery always carries the same id.
/// Computed for every delivery of a fan-out, and kept as a UUID: it is formatted only where it is shown.
/// The API shows past deliveries' ids, so the derivation never changes (a test pins two values). Hashed
/// from stack memory: the arrays this once built were two allocations per delivery.
func stableAPNsID(pushID: String, installationID: String) -> UUID {
    let prefix = "herald:apns-id:".utf8
    let count = prefix.count + pushID.utf8.count + 1 + installationID.utf8.count
    return withUnsafeTemporaryAllocation(byteCount: count + 32, alignment: 16) { memory in
        let digest = UnsafeMutableRawBufferPointer(rebasing: memory[..<32])
        var input = UnsafeMutableRawBufferPointer(rebasing: memory[32...])
        func append<C: Collection<UInt8>>(_ bytes: C) {
            input.copyBytes(from: bytes)
            input = UnsafeMutableRawBufferPointer(rebasing: input[bytes.count...])
        }
        append(prefix)
        append(pushID.utf8)
        append(CollectionOfOne(UInt8(ascii: ":")))
        append(installationID.utf8)
        Digest.sha256(UnsafeRawBufferPointer(rebasing: memory[32...]), into: digest)
        digest[6] = (digest[6] & 0x0f) | 0x50
        digest[8] = (digest[8] & 0x3f) | 0x80
        return UUID(uuid: digest.loadUnaligned(as: uuid_t.self))
    }
}
