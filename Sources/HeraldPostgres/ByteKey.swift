/// Text compared, ordered and hashed by its UTF-8 bytes, as PostgreSQL compares `COLLATE "C"` text and
/// advisory lock keys. Swift's `String` equality would merge canonically equivalent keys into one, which
/// PostgreSQL keeps apart. The bytes are hashed in one call: `[UInt8]`'s own hashing feeds the hasher a byte
/// at a time, which was 2% of herald's CPU per registration on PostgreSQL (docs/performance.md, "Round 25").
struct ByteKey: Hashable, Comparable {
    let bytes: [UInt8]

    init(_ text: String) { bytes = Array(text.utf8) }

    var text: String { String(decoding: bytes, as: UTF8.self) }

    func hash(into hasher: inout Hasher) {
        hasher.combine(bytes.count)
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    /// The order advisory locks are taken in: a `RegistrationBatch` and a lone registration must agree,
    /// whatever Swift's string comparison makes of non-ASCII.
    static func < (a: ByteKey, b: ByteKey) -> Bool { a.bytes.lexicographicallyPrecedes(b.bytes) }
}
