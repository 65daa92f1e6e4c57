import HeraldStore
internal import CSQLite

/// Statement parameters for many rows, encoded ahead of the transaction that binds them: every text in one
/// byte buffer, bound in place. `SQLiteStatement.bind(_:)` hands SQLite each text to copy (a `malloc`, a
/// `memcpy` and a `free` per value, on the writer's thread); values bound from an arena are not copied,
/// because the arena outlives the statement's step (`SQLiteConnection.execute(_:arena:values:base:)`).
struct SQLiteBindArena: Sendable {
    enum Value: Sendable {
        case null
        case integer(Int64)
        case real(Double)
        /// `count` bytes at `start` in `bytes` (followed by a NUL, as SQLite prefers). 32 bits each keep a
        /// value in 16 bytes: a batch holds tens of thousands of them.
        case text(start: UInt32, count: UInt32)
        /// An integer known in part only when the statement runs: bound as this plus the execution's `base`
        /// (an import's tag row holds its draft's index; the seq is that plus where the batch's rows begin).
        case relative(Int64)
    }

    private(set) var bytes: [UInt8] = []
    private(set) var values: [Value] = []

    init(reservingBytes: Int = 0, values: Int = 0) {
        bytes.reserveCapacity(reservingBytes)
        self.values.reserveCapacity(values)
    }

    mutating func append(_ value: SQLValue) {
        switch value {
        case .null: values.append(.null)
        case .integer(let v): values.append(.integer(v))
        case .real(let v): values.append(.real(v))
        case .text(let s): append(text: s)
        case .blob: preconditionFailure("an arena holds no blobs: bind them with SQLiteStatement.bind")
        }
    }

    mutating func append(relative value: Int64) { values.append(.relative(value)) }

    /// Appends `text` and returns its value, which `append(again:)` binds again without a second copy.
    @discardableResult
    mutating func append(text: String) -> Value {
        let start = bytes.count
        // A native string's bytes in one copy; the generic append walks a bridged one's view.
        if text.utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil { bytes.append(contentsOf: text.utf8) }
        precondition(bytes.count < UInt32.max, "an arena holds less than 4 GiB")
        let value = Value.text(start: UInt32(start), count: UInt32(bytes.count - start))
        values.append(value)
        bytes.append(0)
        return value
    }

    /// Binds a value of this arena again (a text appended earlier).
    mutating func append(again value: Value) { values.append(value) }

    mutating func replace(_ index: Int, with value: Value) { values[index] = value }
}

extension SQLiteStatement {
    /// Binds `values` of `arena` (whose bytes start at `base`) to parameters 1, 2, ... without copying
    /// texts: `base` must stay valid until the statement has stepped. (The caller binds the parameters after
    /// these: `bindNull(after:)`.)
    func bind(_ values: ArraySlice<SQLiteBindArena.Value>, bytes: UnsafePointer<UInt8>, base: Int64) -> Int32 {
        for (offset, value) in zip(0..., values) {
            let index = Int32(offset + 1)
            let rc: Int32
            switch value {
            case .null: rc = sqlite3_bind_null(handle, index)
            case .integer(let v): rc = sqlite3_bind_int64(handle, index, v)
            case .real(let v): rc = sqlite3_bind_double(handle, index, v)
            case .relative(let v): rc = sqlite3_bind_int64(handle, index, base + v)
            case let .text(start, count):
                // A nil destructor is SQLITE_STATIC: SQLite reads the bytes where they are.
                rc = (bytes + Int(start)).withMemoryRebound(to: CChar.self, capacity: Int(count) + 1) {
                    sqlite3_bind_text(handle, index, $0, Int32(count), nil)
                }
            }
            if rc != SQLITE_OK { return rc }
        }
        return SQLITE_OK
    }
}
