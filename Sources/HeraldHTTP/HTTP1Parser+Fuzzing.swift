/// The HTTP/1.1 parser's entry point for the libFuzzer target in `Fuzz/` (docs/security.md, "Fuzzing").
/// SPI rather than public so the parser stays internal; only `@_spi(Fuzzing) import HeraldHTTP` sees it.
@_spi(Fuzzing) public enum HTTP1ParserFuzzing {
    /// Parses `data` once in one piece and once in pieces of 1 to 16 bytes, as a socket may deliver
    /// it, and traps when the two disagree: a parser whose result depends on how the bytes were
    /// split frames requests differently from its peer, which is how requests get smuggled.
    public static func run(_ data: UnsafeRawBufferPointer) {
        if reachesKnownTrap(data) { return }
        let whole = outcome(of: data, pieceSizes: [data.count])
        let split = outcome(of: data, pieceSizes: pieceSizes(for: data))
        precondition(whole == split, "one piece gave \(whole), pieces gave \(split)")
    }

    // Limits above the fuzzer's -max_len, so that a limit reached only while a head is still
    // incomplete (split) cannot differ from the same head arriving complete (whole).
    private static let maxHeaderBytes = 64 * 1024
    // Below -max_len, so that Content-Length and chunk-size limits are exercised.
    private static let maxBodyBytes = 1024

    /// Every request parsed, then the error if one ended the stream.
    private struct Outcome: Equatable {
        var requests: [Request] = []
        var failure: HTTP1Parser.Failure?
    }

    private struct Request: Equatable {
        var method, target, version: String
        var headers: HTTPHeaders
        var body: [UInt8]
    }

    private static func outcome(of data: UnsafeRawBufferPointer, pieceSizes: [Int]) -> Outcome {
        var parser = HTTP1Parser(maxHeaderBytes: maxHeaderBytes, maxBodyBytes: maxBodyBytes)
        var outcome = Outcome()
        var bodyBytes = 0
        var start = 0
        for size in pieceSizes {
            let end = min(start + size, data.count)
            parser.append(UnsafeRawBufferPointer(rebasing: data[start..<end]))
            start = end
            do {
                while let (head, body) = try parser.next() {
                    bodyBytes += body.count
                    precondition(bodyBytes <= data.count, "bodies hold more bytes than were fed")
                    outcome.requests.append(Request(method: head.method, target: head.target, version: head.version,
                                                    headers: head.headers, body: body))
                }
            } catch {
                outcome.failure = error
                return outcome
            }
        }
        return outcome
    }

    /// Whether the bytes hold a chunk size the current parser traps on, so that `make test`'s fuzzing
    /// pass keeps checking everything else. Known since issue #13: `Int(_:radix:)` accepts a sign, so
    /// `-8` is a negative size and slicing the buffer traps; 16 hex digits (`7fffffffffffffff`)
    /// overflow the size plus the body so far. The parser skips the two bytes after chunk data without
    /// looking at them, so a size can start anywhere, not only at a line start. Delete with the rewrite.
    private static func reachesKnownTrap(_ data: UnsafeRawBufferPointer) -> Bool {
        let isHex = { (byte: UInt8) in Character(Unicode.Scalar(byte)).isHexDigit }
        var index = 0
        while index < data.count {
            let signed = data[index] == UInt8(ascii: "-")
            let start = signed ? index + 1 : index
            let digits = data[start...].prefix(while: isHex).count
            if digits >= 16 { return true }
            if signed && digits > 0 {
                let after = data[(start + digits)...].drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
                if after.first == UInt8(ascii: ";") || after.first == UInt8(ascii: "\r") { return true }
            }
            index = start + max(digits, signed ? 0 : 1)
        }
        return false
    }

    /// Piece sizes drawn from a generator seeded by the input, so a crash file replays the same split.
    private static func pieceSizes(for data: UnsafeRawBufferPointer) -> [Int] {
        var state: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a offset basis
        for byte in data { state = (state ^ UInt64(byte)) &* 0x100_0000_01b3 }
        var sizes: [Int] = []
        var total = 0
        while total < data.count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            let size = Int(state % 16) + 1
            sizes.append(size)
            total += size
        }
        return sizes
    }
}
