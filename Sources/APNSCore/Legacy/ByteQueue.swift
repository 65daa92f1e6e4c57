/// Bytes received but not yet decoded. Reads are big-endian, as the binary protocol is.
/// Consumed bytes are dropped lazily so a stream of small frames costs no copying per frame.
struct ByteQueue: Sendable {
    private var storage: [UInt8] = []
    private var readIndex = 0

    var count: Int { storage.count - readIndex }

    mutating func append(contentsOf bytes: some Sequence<UInt8>) {
        if readIndex > 0 && readIndex >= storage.count / 2 {
            storage.removeFirst(readIndex)
            readIndex = 0
        }
        storage.append(contentsOf: bytes)
    }

    func uint8(at offset: Int) -> UInt8 {
        storage[readIndex + offset]
    }

    func uint16(at offset: Int) -> UInt16 {
        UInt16(storage[readIndex + offset]) << 8 | UInt16(storage[readIndex + offset + 1])
    }

    func uint32(at offset: Int) -> UInt32 {
        let base = readIndex + offset
        return UInt32(storage[base]) << 24 | UInt32(storage[base + 1]) << 16 | UInt32(storage[base + 2]) << 8
            | UInt32(storage[base + 3])
    }

    func bytes(at offset: Int, count: Int) -> [UInt8] {
        Array(storage[(readIndex + offset)..<(readIndex + offset + count)])
    }

    mutating func consume(_ count: Int) {
        readIndex += count
        if readIndex == storage.count {
            storage.removeAll(keepingCapacity: true)
            readIndex = 0
        }
    }
}

extension Array where Element == UInt8 {
    mutating func appendBigEndian(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }

    mutating func appendBigEndian(_ value: UInt32) {
        append(UInt8(truncatingIfNeeded: value >> 24))
        append(UInt8(truncatingIfNeeded: value >> 16))
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }
}
