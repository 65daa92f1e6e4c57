/// Writes compact JSON straight into a byte buffer.
///
/// Payloads are encoded once per variant but that encoding sits in benchmarks, so this avoids
/// Foundation entirely: no intermediate strings, no dictionaries, no key sorting.
/// Strings are written as UTF-8 (non-ASCII is not `\u`-escaped); `"`, `\` and control
/// characters are escaped; `/` is not.
package struct JSONWriter {
    package var bytes: [UInt8]

    package init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    // MARK: Scalars

    package mutating func writeNull() {
        writeStatic("null")
    }

    package mutating func writeBool(_ value: Bool) {
        writeStatic(value ? "true" : "false")
    }

    /// Appends constant ASCII text without building an intermediate array.
    private mutating func writeStatic(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    package mutating func writeInt(_ value: Int) {
        if value >= 0 && value < 10 {
            bytes.append(UInt8(truncatingIfNeeded: value) &+ 0x30)
            return
        }
        // Digits are produced backwards into a fixed scratch area, then copied once.
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { scratch in
            var position = 20
            repeat {
                position -= 1
                scratch[position] = UInt8(truncatingIfNeeded: magnitude % 10) &+ 0x30
                magnitude /= 10
            } while magnitude != 0
            if value < 0 { bytes.append(0x2D) }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: scratch[position..<20]))
        }
    }

    /// Finite doubles in Swift's shortest round-trip form, which is valid JSON (`0.5`, `25.0`,
    /// `1e-05`); a double stays recognisably a double (`25.0`, never `25`). JSON has no NaN or
    /// infinity, so those become `null`.
    package mutating func writeDouble(_ value: Double) {
        guard value.isFinite else {
            writeNull()
            return
        }
        bytes.append(contentsOf: value.description.utf8)
    }

    package mutating func writeString(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            bytes.append(0x22)
            var runStart = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
                if runStart < index {
                    bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                }
                writeEscape(byte)
                runStart = index + 1
            }
            if runStart < utf8.count {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
            }
            bytes.append(0x22)
        }
    }

    private mutating func writeEscape(_ byte: UInt8) {
        bytes.append(0x5C)
        switch byte {
        case 0x22: bytes.append(0x22)
        case 0x5C: bytes.append(0x5C)
        case 0x08: bytes.append(0x62)  // \b
        case 0x0C: bytes.append(0x66)  // \f
        case 0x0A: bytes.append(0x6E)  // \n
        case 0x0D: bytes.append(0x72)  // \r
        case 0x09: bytes.append(0x74)  // \t
        default:
            writeStatic("u00")
            bytes.append(Self.hexDigit(byte >> 4))
            bytes.append(Self.hexDigit(byte & 0x0F))
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? nibble + 0x30 : nibble - 10 + 0x61
    }

    // MARK: Structure

    package mutating func writeRaw(_ byte: UInt8) {
        bytes.append(byte)
    }

    /// Writes `"key":`, preceded by a comma unless it is the first member.
    package mutating func writeKey(_ key: String, first: inout Bool) {
        if first {
            first = false
        } else {
            bytes.append(0x2C)
        }
        writeString(key)
        bytes.append(0x3A)
    }

    /// Writes `"key":` for a key known to need no escaping (the fixed `aps` vocabulary).
    package mutating func writeStaticKey(_ key: StaticString, first: inout Bool) {
        if first {
            first = false
        } else {
            bytes.append(0x2C)
        }
        bytes.append(0x22)
        writeStatic(key)
        bytes.append(0x22)
        bytes.append(0x3A)
    }

    package mutating func writeStringArray(_ values: [String]) {
        bytes.append(0x5B)
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(0x2C) }
            writeString(value)
        }
        bytes.append(0x5D)
    }

    package mutating func write(_ value: JSONValue) {
        switch value {
        case .null: writeNull()
        case .bool(let bool): writeBool(bool)
        case .int(let int): writeInt(int)
        case .double(let double): writeDouble(double)
        case .string(let string): writeString(string)
        case .array(let array):
            bytes.append(0x5B)
            for (index, element) in array.enumerated() {
                if index > 0 { bytes.append(0x2C) }
                write(element)
            }
            bytes.append(0x5D)
        case .object(let object):
            bytes.append(0x7B)
            writeMembers(of: object, first: true) { _ in false }
            bytes.append(0x7D)
        }
    }

    /// Writes the members of `object` (without braces), leaving out keys for which
    /// `alreadyWritten` is true (a typed field wrote them), so extra keys never produce a duplicate.
    package mutating func writeMembers(of object: JSONObject, first: Bool, alreadyWritten: (String) -> Bool) {
        var first = first
        for (key, value) in object where !alreadyWritten(key) {
            writeKey(key, first: &first)
            write(value)
        }
    }
}

extension JSONValue {
    /// The value as compact JSON, members in their stored order.
    public func jsonBytes() -> [UInt8] {
        var writer = JSONWriter()
        writer.write(self)
        return writer.bytes
    }

    /// Appends the value as compact JSON to `buffer`.
    public func writeJSON(into buffer: inout [UInt8]) {
        var writer = JSONWriter(capacity: 0)
        swap(&writer.bytes, &buffer)
        writer.write(self)
        swap(&writer.bytes, &buffer)
    }
}
