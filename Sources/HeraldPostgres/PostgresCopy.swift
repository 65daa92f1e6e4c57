internal import CPostgres

/// Rows in the text format of `COPY ... FROM STDIN` (columns separated by tabs, rows by newlines, `\N` for
/// NULL, backslash escapes), written straight into bytes: COPY is PostgreSQL's fastest way in for many rows,
/// and one buffer costs one round trip however many rows it holds. Values are data, never SQL.
struct PGCopyRows {
    private(set) var bytes: [UInt8] = []
    private(set) var count = 0
    private var rowStarted = false

    init(reservingBytes capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    private mutating func separate() {
        if rowStarted { bytes.append(0x09) }
        rowStarted = true
    }

    private mutating func null() { bytes.append(0x5C); bytes.append(0x4E) }

    /// Escapes what the format gives a meaning to: backslash, tab, newline and carriage return. Most values
    /// (tokens, ids, times) have none of them and are copied whole: byte by byte, this was a tenth of
    /// herald's CPU in a PostgreSQL import.
    private mutating func escaped(_ s: String) {
        var s = s
        s.withUTF8 { utf8 in
            guard utf8.contains(where: { $0 == 0x5C || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) else {
                bytes.append(contentsOf: utf8)
                return
            }
            for b in utf8 {
                switch b {
                case 0x5C: bytes.append(0x5C); bytes.append(0x5C)
                case 0x09: bytes.append(0x5C); bytes.append(0x74)
                case 0x0A: bytes.append(0x5C); bytes.append(0x6E)
                case 0x0D: bytes.append(0x5C); bytes.append(0x72)
                default: bytes.append(b)
                }
            }
        }
    }

    mutating func text(_ value: String?) {
        separate()
        if let value { escaped(value) } else { null() }
    }

    mutating func int(_ value: Int64?) {
        separate()
        if let value { bytes += String(value).utf8 } else { null() }
    }

    /// The same decimal form as `Date.pg` binds, so a time reads back exactly.
    mutating func double(_ value: Double?) {
        separate()
        if let value { bytes += String(value).utf8 } else { null() }
    }

    mutating func bool(_ value: Bool) {
        separate()
        bytes.append(value ? 0x74 : 0x66)
    }

    mutating func endRow() {
        bytes.append(0x0A)
        rowStarted = false
        count += 1
    }

    /// Ends a row's first columns without ending the row, for rows written ahead whose last columns are only
    /// known later (`columns(_:)`). Returns where they end in `bytes`.
    mutating func endFirstColumns() -> Int {
        rowStarted = false
        return bytes.count
    }

    /// Starts a row with columns another `PGCopyRows` wrote ahead (a range of its `bytes` that
    /// `endFirstColumns` ended); the row's other columns and `endRow` follow.
    mutating func columns(_ written: ArraySlice<UInt8>) {
        separate()
        bytes.append(contentsOf: written)
    }
}

extension PostgresConnection {
    /// Runs `sql` (a `COPY ... FROM STDIN`) and streams `rows` into it in one go; returns the rows copied.
    /// A row the server refuses fails the whole COPY (and the transaction it is in).
    @discardableResult
    func copy(_ sql: String, _ rows: PGCopyRows) throws -> Int {
        try sendDeferredBegin()
        let conn = try live()
        let start = PQexec(conn, sql)
        guard PQresultStatus(start) == PGRES_COPY_IN else {
            defer { PQclear(start) }
            throw failure(start, sql: sql)
        }
        PQclear(start)
        let sent: Int32 = rows.bytes.isEmpty ? 1 : rows.bytes.withUnsafeBytes { buffer in
            PQputCopyData(conn, buffer.baseAddress!.assumingMemoryBound(to: CChar.self), Int32(buffer.count))
        }
        // Ending with an error message makes the server abort the COPY, so a half-sent buffer is never taken.
        _ = PQputCopyEnd(conn, sent == 1 ? nil : "herald: sending the rows failed")
        var error: PostgresError?
        var copied = 0
        while let result = PQgetResult(conn) {
            if PQresultStatus(result) == PGRES_COMMAND_OK {
                copied = PQcmdTuples(result).flatMap { Int(String(cString: $0)) } ?? 0
            } else if error == nil {
                error = failure(result, sql: sql)
            }
            PQclear(result)
        }
        if let error { throw error }
        return copied
    }
}
