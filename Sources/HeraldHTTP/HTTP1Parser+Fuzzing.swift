/// The HTTP/1.1 parser's entry point for the libFuzzer target in `Fuzz/` (docs/security.md, "Fuzzing").
/// SPI rather than public so the parser stays internal; only `@_spi(Fuzzing) import HeraldHTTP` sees it.
@_spi(Fuzzing) public enum HTTP1ParserFuzzing {
    /// Parses `data` once in one piece and once in pieces of 1 to 16 bytes, as a socket may deliver
    /// it, and traps when the two disagree: a parser whose result depends on how the bytes were
    /// split frames requests differently from its peer, which is how requests get smuggled.
    public static func run(_ data: UnsafeRawBufferPointer) {
        let whole = outcome(of: data, pieceSizes: [data.count])
        let split = outcome(of: data, pieceSizes: pieceSizes(for: data))
        precondition(whole == split, "one piece gave \(whole), pieces gave \(split)")
    }

    /// Small limits, below the fuzzer's -max_len, so that every limit is exercised; they must hold the
    /// same way whether the bytes come in one piece or in many.
    private static let limits: HTTP1Limits = {
        var limits = HTTP1Limits()
        limits.maxRequestLineBytes = 512
        limits.maxHeaderBytes = 1024
        limits.maxHeaderCount = 16
        return limits
    }()

    /// Every request parsed, then the error if one ended the stream.
    private struct Outcome: Equatable {
        var requests: [Request] = []
        var failure: HTTP1Parser.Failure?
    }

    private struct Request: Equatable {
        var head: HTTP1Parser.Head
        var body: [UInt8] = []
    }

    private static func outcome(of data: UnsafeRawBufferPointer, pieceSizes: [Int]) -> Outcome {
        var parser = HTTP1Parser(limits: limits)
        var outcome = Outcome()
        var bodyBytes = 0
        var start = 0
        for size in pieceSizes {
            let end = min(start + size, data.count)
            parser.append(UnsafeRawBufferPointer(rebasing: data[start..<end]))
            start = end
            do {
                while let event = try parser.next() {
                    switch event {
                    case let .head(head):
                        outcome.requests.append(Request(head: head))
                    case let .body(piece):
                        bodyBytes += piece.count
                        precondition(bodyBytes <= data.count, "bodies hold more bytes than were fed")
                        outcome.requests[outcome.requests.count - 1].body += piece
                    case .end:
                        break
                    }
                }
            } catch {
                outcome.failure = error
                return outcome
            }
            precondition(parser.bytesExamined <= 4 * data.count + 64, "the parser examined \(parser.bytesExamined) bytes of \(data.count)")
        }
        return outcome
    }

    /// Piece sizes drawn from a generator seeded by the input, so a crash file replays the same split.
    static func pieceSizes(for data: UnsafeRawBufferPointer) -> [Int] {
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
