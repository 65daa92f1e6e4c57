internal import CNGHTTP2

/// A header block being handed to nghttp2: the fields' bytes in one buffer and the `nghttp2_nv` array
/// pointing into it, and into sets of fields encoded once for many requests (`HTTP2HeaderFields`). Each
/// connection keeps one and reuses its buffers for every request or response it submits (nghttp2 copies
/// a block on submit), so submitting costs no allocation once they have grown.
/// A value type filled through `HTTP2Endpoint.withHeaderBlock`: appending to a class's arrays would pay
/// a dynamic exclusivity check per field.
struct HeaderBlock {
    private var bytes: [UInt8] = []
    private var spans: [(name: Int, nameLength: Int, value: Int, valueLength: Int, flags: UInt8)] = []
    private var nv: [nghttp2_nv] = []
    /// Fields encoded elsewhere, each sent after the first `at` of this block's own.
    private var shared: [(at: Int, fields: HTTP2HeaderFields)] = []

    mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        spans.removeAll(keepingCapacity: true)
        shared.removeAll(keepingCapacity: true)
    }

    /// Appends a field. HTTP/2 wants lowercase names: `lowercasingName` lowers ASCII capitals in place,
    /// for names that came from callers rather than from constants. A field not `indexed` is sent as a
    /// literal that neither end adds to its HPACK table (`HTTP2HeaderFields.neverIndexed`).
    mutating func add(_ name: String, _ value: String, lowercasingName: Bool = false, indexed: Bool = true) {
        let n0 = bytes.count
        append(name)
        if lowercasingName {
            for i in n0..<bytes.count where bytes[i] >= 0x41 && bytes[i] <= 0x5A { bytes[i] |= 0x20 }
        }
        let v0 = bytes.count
        append(value)
        spans.append((n0, v0 - n0, v0, bytes.count - v0, indexed ? HTTP2HeaderFields.indexed : HTTP2HeaderFields.neverIndexed))
    }

    /// Appends fields encoded once for many requests, without copying them.
    mutating func add(_ fields: HTTP2HeaderFields) {
        shared.append((spans.count, fields))
    }

    private mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// The block as nghttp2 takes it, valid for the duration of `body`.
    mutating func withNV<T>(_ body: (UnsafePointer<nghttp2_nv>, Int) -> T) -> T {
        nv.removeAll(keepingCapacity: true)
        let shared = shared   // keeps the fields nv points into alive during `body`
        return withExtendedLifetime(shared) {
            bytes.withUnsafeMutableBufferPointer { buffer in
                let base = buffer.baseAddress!
                var next = 0
                for (i, s) in spans.enumerated() {
                    while next < shared.count && shared[next].at == i { nv.append(contentsOf: shared[next].fields.nv); next += 1 }
                    nv.append(nghttp2_nv(name: base + s.name, value: base + s.value, namelen: s.nameLength, valuelen: s.valueLength, flags: s.flags))
                }
                while next < shared.count { nv.append(contentsOf: shared[next].fields.nv); next += 1 }
                return nv.withUnsafeBufferPointer { body($0.baseAddress!, $0.count) }
            }
        }
    }
}
