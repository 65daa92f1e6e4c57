import Foundation

/// Turns received header fields into strings, reusing the strings of the last field that had the same
/// name and value. HPACK makes a connection's requests repeat most values (an APNs provider sends the same
/// topic, push type and ~200-byte provider token on every stream), and comparing bytes costs far less than
/// allocating and validating new strings. Equal strings that share storage also compare in O(1) later.
struct HeaderInterner {
    private struct Entry {
        var nameBytes: [UInt8]
        var name: String
        var valueBytes: [UInt8]
        var value: String
        /// Set when the value changed twice in a row (an `apns-id`, or a `:path` naming a different device
        /// each time): the name keeps its entry but values are no longer kept.
        var varies = false
        var changedLastTime = false
    }

    /// One entry per header name, the most recent value; bounded so odd peers cannot grow it.
    private var entries: [Entry] = []
    private let capacity = 32

    /// Where the next field's entry probably is: a peer sends its headers in the same order every time,
    /// so looking just after the last match first finds nearly every name at the first comparison.
    private var guess = 0

    mutating func field(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) -> (name: String, value: String) {
        let count = entries.count
        for step in 0..<count {
            let i = (guess + step) % count
            guard Self.equal(entries[i].nameBytes, name) else { continue }
            guess = i + 1
            if entries[i].varies { return (entries[i].name, String(decoding: value, as: UTF8.self)) }
            if Self.equal(entries[i].valueBytes, value) {
                entries[i].changedLastTime = false
            } else {
                if entries[i].changedLastTime {
                    entries[i].varies = true
                    entries[i].valueBytes = []
                    entries[i].value = ""
                    return (entries[i].name, String(decoding: value, as: UTF8.self))
                }
                entries[i].changedLastTime = true
                entries[i].valueBytes = Array(value)
                entries[i].value = String(decoding: value, as: UTF8.self)
            }
            return (entries[i].name, entries[i].value)
        }
        let field = (name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self))
        if entries.count < capacity {
            entries.append(Entry(nameBytes: Array(name), name: field.name, valueBytes: Array(value), value: field.value))
            guess = entries.count
        }
        return field
    }

    static func equal(_ stored: [UInt8], _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard stored.count == bytes.count else { return false }
        guard stored.count > 0, let base = bytes.baseAddress else { return true }
        return stored.withUnsafeBufferPointer { memcmp($0.baseAddress!, base, bytes.count) == 0 }
    }
}
