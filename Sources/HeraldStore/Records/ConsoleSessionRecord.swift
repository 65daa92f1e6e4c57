import Foundation

/// A signed-in web console: the browser holds a random session id in a cookie; the store keeps only its
/// SHA-256 (`idHash`), the SHA-256 of the API key it was opened with (`keyHash`, the same hash the keys
/// table holds, so every request re-checks that key is not revoked) and when it was opened and last used.
public struct ConsoleSessionRecord: Sendable, Equatable {
    public var idHash: [UInt8]
    public var keyHash: [UInt8]
    public var createdAt: Date
    public var lastSeenAt: Date

    public init(idHash: [UInt8], keyHash: [UInt8], createdAt: Date, lastSeenAt: Date) {
        self.idHash = idHash; self.keyHash = keyHash; self.createdAt = createdAt; self.lastSeenAt = lastSeenAt
    }
}
