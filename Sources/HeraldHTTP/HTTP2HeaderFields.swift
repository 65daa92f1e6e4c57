internal import CNGHTTP2

/// Request header fields laid out once in the form nghttp2 takes them, to be shared by many requests.
///
/// A batch to one topic repeats the same fields (provider token, topic, push type, priority) in every
/// request. Encoding them once, on the caller's thread, leaves the connection's event loop, which every
/// request of the connection passes through, only pointing nghttp2 at these bytes rather than copying
/// strings for each request. Immutable, so `@unchecked Sendable`: the bytes are written in `init` only.
public final class HTTP2HeaderFields: @unchecked Sendable {
    private let bytes: UnsafeMutableBufferPointer<UInt8>
    /// Points into `bytes`, which live as long as this object.
    let nv: [nghttp2_nv]

    public static let empty = HTTP2HeaderFields([])

    /// nghttp2's flag for a field it may add to the HPACK table both ends keep, so that the next request
    /// sends an index instead of the field.
    static let indexed = UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)
    /// The flag for a value unique to one request or response (APNs' `apns-id`, `apns-unique-id`): indexing
    /// it saves nothing, and each one added to the 4 KiB table costs both ends an insertion and pushes an
    /// older entry out, the shared fields (topic, push type, priority) among them every few dozen requests,
    /// which then go out as literals again. 6% of a fan-out's instructions per delivery (docs/performance.md,
    /// round 13). nghttp2 never indexes `authorization` whatever the flag.
    static let neverIndexed = UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue)

    /// Names are lowercased (ASCII): HTTP/2 wants them so, and the client hands them to nghttp2 without a copy,
    /// which skips nghttp2's own lowercasing.
    public init(_ fields: [(name: String, value: String)]) {
        let size = fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count }
        bytes = .allocate(capacity: max(1, size))
        var nv: [nghttp2_nv] = []
        nv.reserveCapacity(fields.count)
        var at = 0
        for field in fields {
            let name = bytes.baseAddress! + at
            at = Self.copy(field.name, into: bytes, at: at, lowercasing: true)
            let value = bytes.baseAddress! + at
            at = Self.copy(field.value, into: bytes, at: at)
            nv.append(nghttp2_nv(name: name, value: value, namelen: field.name.utf8.count, valuelen: field.value.utf8.count, flags: Self.indexed))
        }
        self.nv = nv
    }

    deinit { bytes.deallocate() }

    public var isEmpty: Bool { nv.isEmpty }

    private static func copy(_ text: String, into bytes: UnsafeMutableBufferPointer<UInt8>, at: Int, lowercasing: Bool = false) -> Int {
        var at = at
        for byte in text.utf8 {
            bytes[at] = lowercasing && byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
            at += 1
        }
        return at
    }
}
