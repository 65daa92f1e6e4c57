internal import COpenSSL

/// Comparisons whose duration does not reveal where two secrets differ (API keys, MACs).
public enum ConstantTime {
    /// True if `lhs` and `rhs` are equal. The time taken depends only on the lengths.
    public static func equals<A: Collection, B: Collection>(_ lhs: A, _ rhs: B) -> Bool
    where A.Element == UInt8, B.Element == UInt8 {
        guard lhs.count == rhs.count else { return false }
        guard !lhs.isEmpty else { return true }
        return withContiguousBytes(lhs) { left in
            withContiguousBytes(rhs) { right in CRYPTO_memcmp(left.baseAddress, right.baseAddress, left.count) == 0 }
        }
    }

    /// True if the two strings' UTF-8 bytes are equal, in constant time for a given length.
    public static func equals(_ lhs: String, _ rhs: String) -> Bool { equals(Array(lhs.utf8), Array(rhs.utf8)) }
}
