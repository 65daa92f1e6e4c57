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

    /// Names are lowercased (ASCII): HTTP/2 wants them so, and the client hands them to nghttp2 without a copy,
    /// which skips nghttp2's own lowercasing.
    public init(_ fields: [(name: String, value: String)]) {
        let size = fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count }
        bytes = .allocate(capacity: max(1, size))
        var nv: [nghttp2_nv] = []
        nv.reserveCapacity(fields.count)
        var at = 0
        let flags = UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)
        for field in fields {
            let name = bytes.baseAddress! + at
            at = Self.copy(field.name, into: bytes, at: at, lowercasing: true)
            let value = bytes.baseAddress! + at
            at = Self.copy(field.value, into: bytes, at: at)
            nv.append(nghttp2_nv(name: name, value: value, namelen: field.name.utf8.count, valuelen: field.value.utf8.count, flags: flags))
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
