/// The HTTP/1.1 response reader's entry point for the libFuzzer target in `Fuzz/` (docs/security.md,
/// "Fuzzing"). The reader parses what webhook receivers (any URL a user configures) answer.
@_spi(Fuzzing) public enum HTTP1ResponseReaderFuzzing {
    /// Reads `data` once in one piece and once in pieces of 1 to 16 bytes, and traps when the two disagree
    /// (head, body, whether the connection could be reused, the error) or when the body holds more bytes than
    /// were fed. A reader whose answer depends on how the bytes were split could reuse a connection that still
    /// holds part of an answer, and read it as the next request's.
    public static func run(_ data: UnsafeRawBufferPointer) {
        // The first byte picks the request's method: the answer to a HEAD has no body whatever it says.
        let method = data.first.map { $0 & 7 == 0 ? "HEAD" : "POST" } ?? "POST"
        let whole = outcome(of: data, method: method, pieceSizes: [data.count])
        let split = outcome(of: data, method: method, pieceSizes: HTTP1ParserFuzzing.pieceSizes(for: data))
        precondition(whole == split, "one piece gave \(whole), pieces gave \(split)")
    }

    private struct Outcome: Equatable {
        var status: Int?
        var headers: HTTPHeaders?
        var body: [UInt8] = []
        var completeBeforeEnd = false
        var keepAlive = false
        var failure: String?
    }

    private static func outcome(of data: UnsafeRawBufferPointer, method: String, pieceSizes: [Int]) -> Outcome {
        var reader = HTTP1ResponseReader(method: method)
        var outcome = Outcome()
        var start = 0
        do {
            for size in pieceSizes {
                let end = min(start + size, data.count)
                try reader.read(UnsafeRawBufferPointer(rebasing: data[start..<end])) { outcome.body += $0 }
                start = end
                precondition(outcome.body.count <= data.count, "the body holds more bytes than were fed")
            }
            outcome.completeBeforeEnd = reader.isComplete
            outcome.keepAlive = reader.keepAlive
            try reader.endOfStream()
        } catch {
            outcome.failure = "\(error)"
        }
        outcome.status = reader.head?.status
        outcome.headers = reader.head?.headers
        return outcome
    }
}
