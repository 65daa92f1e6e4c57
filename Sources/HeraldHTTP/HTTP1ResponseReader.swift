/// Reads one HTTP/1.1 response from a connection's bytes as they arrive: the head, then the body framed by
/// `Content-Length`, by chunks, or by the end of the connection. It also says whether the connection can carry
/// another request afterwards (`keepAlive`), which a pooled client needs to know before reusing it.
///
/// The peer is whatever a URL names (a webhook receiver, a proxy), so nothing it sends can make the reader
/// hold more than `maxHeadBytes` of head or `maxLineBytes` of a chunk's size line or trailer, trap, or work
/// more than linearly: bytes are consumed by moving an offset, and the buffer is compacted once per read.
struct HTTP1ResponseReader {
    static let maxHeadBytes = 64 * 1024
    static let maxLineBytes = 4096
    /// Interim answers (100 Continue, 103 Early Hints) before the real one.
    static let maxInterimAnswers = 16

    enum Failure: Error, CustomStringConvertible {
        case malformed(String)
        case tooLarge(String)

        var description: String {
            switch self {
            case .malformed(let what): "malformed HTTP response: \(what)"
            case .tooLarge(let what): "HTTP response too large: \(what)"
            }
        }
    }

    private enum Stage { case head, length(Int), chunkSize, chunkData(Int), chunkEnd, trailers, untilClose, done }

    private let method: String
    private var stage = Stage.head
    private var buffer: [UInt8] = []
    /// Bytes of `buffer` already read; dropped at the end of each `read`.
    private var consumed = 0
    /// How far into `buffer` the search for the head's end has looked: a head that arrives a byte at a time is
    /// searched once, not once per byte.
    private var headSearched = 0
    private var interimAnswers = 0
    private(set) var head: ResponseHead?
    /// HTTP/1.1 without `Connection: close`.
    private var persistent = false

    init(method: String) { self.method = method }

    var isComplete: Bool { if case .done = stage { true } else { false } }

    /// The response is complete and the connection can carry another request: HTTP/1.1 without `Connection:
    /// close`, a body whose end came from its framing rather than the connection's, and nothing sent after it.
    var keepAlive: Bool { isComplete && persistent && consumed == buffer.count }

    /// Takes the next bytes; `onBody` gets each piece of the body. Throws on a response it cannot read.
    mutating func read(_ bytes: UnsafeRawBufferPointer, onBody: ([UInt8]) -> Void) throws {
        buffer.append(contentsOf: bytes)
        if case .done = stage { return }   // unasked-for bytes: the connection is not reused
        defer { compact() }
        try advance(onBody: onBody)
    }

    /// The connection ended. A body delimited by the end is complete now. A response without a head, or whose
    /// body its length or chunks say is longer than what came, is an error: the answer was cut short.
    mutating func endOfStream() throws {
        persistent = false
        switch stage {
        case .done, .untilClose:
            stage = .done
        case .head:
            throw Failure.malformed("the connection closed before the status line and headers")
        case .length(let left):
            throw Failure.malformed("the connection closed \(left) bytes before the end of the body")
        case .chunkSize, .chunkData, .chunkEnd, .trailers:
            throw Failure.malformed("the connection closed inside the chunked body")
        }
    }

    private var unread: Int { buffer.count - consumed }

    private mutating func compact() {
        guard consumed > 0 else { return }
        buffer.removeSubrange(..<consumed)
        headSearched = max(0, headSearched - consumed)
        consumed = 0
    }

    private mutating func advance(onBody: ([UInt8]) -> Void) throws {
        while true {
            switch stage {
            case .head:
                let from = max(consumed, headSearched - 3)
                guard let end = buffer[from...].firstRange(of: [13, 10, 13, 10]) else {
                    headSearched = buffer.count
                    if unread > Self.maxHeadBytes { throw Failure.tooLarge("head over \(Self.maxHeadBytes) bytes") }
                    return
                }
                guard end.lowerBound - consumed <= Self.maxHeadBytes else { throw Failure.tooLarge("head over \(Self.maxHeadBytes) bytes") }
                let text = String(decoding: buffer[consumed..<end.lowerBound], as: UTF8.self)
                consumed = end.upperBound
                headSearched = consumed
                try parseHead(text)
            case .length(let left):
                let take = min(left, unread)
                if take > 0 { onBody(Array(buffer[consumed..<consumed + take])); consumed += take }
                stage = left == take ? .done : .length(left - take)
                if left > take { return }
            case .chunkSize:
                guard let line = try takeLine() else { return }
                let size = line.split(separator: ";", maxSplits: 1).first.map { String($0).trimmingSpaces } ?? ""
                // Hex digits only (`Int(radix:)` takes a sign), and few enough that the size and its CRLF fit.
                guard !size.isEmpty, size.count <= 15, size.utf8.allSatisfy(\.isHexDigit), let n = Int(size, radix: 16) else {
                    throw Failure.malformed("chunk size \"\(size.prefix(32))\"")
                }
                stage = n == 0 ? .trailers : .chunkData(n)
            case .chunkData(let left):
                guard unread > 0 else { return }
                let take = min(left, unread)
                onBody(Array(buffer[consumed..<consumed + take]))
                consumed += take
                stage = left == take ? .chunkEnd : .chunkData(left - take)
            case .chunkEnd:
                guard unread >= 2 else { return }
                guard buffer[consumed] == 13, buffer[consumed + 1] == 10 else { throw Failure.malformed("no CRLF after a chunk's data") }
                consumed += 2
                stage = .chunkSize
            case .trailers:
                guard let line = try takeLine() else { return }
                if line.isEmpty { stage = .done }
            case .untilClose:
                if unread > 0 { onBody(Array(buffer[consumed...])); consumed = buffer.count }
                return
            case .done:
                return
            }
        }
    }

    /// The next CRLF-terminated line, without it; nil until it has arrived.
    private mutating func takeLine() throws -> String? {
        guard let end = buffer[consumed...].firstRange(of: [13, 10]) else {
            if unread > Self.maxLineBytes { throw Failure.tooLarge("a chunk line over \(Self.maxLineBytes) bytes") }
            return nil
        }
        guard end.lowerBound - consumed <= Self.maxLineBytes else { throw Failure.tooLarge("a chunk line over \(Self.maxLineBytes) bytes") }
        let line = String(decoding: buffer[consumed..<end.lowerBound], as: UTF8.self)
        consumed = end.upperBound
        return line
    }

    private mutating func parseHead(_ text: String) throws {
        var lines = text.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ", maxSplits: 2)
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), statusLine[1].utf8.count == 3,
              statusLine[1].utf8.allSatisfy(\.isDigit), let status = Int(statusLine[1]), status >= 100 else {
            throw Failure.malformed("status line \"\(text.prefix(40))\"")
        }
        var headers = HTTPHeaders()
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.add(String(line[..<colon]), line[line.index(after: colon)...].trimmingSpaces)
        }
        // An interim answer (100 Continue, 103 Early Hints) is followed by the real one.
        if (100..<200).contains(status) && status != 101 {
            interimAnswers += 1
            guard interimAnswers <= Self.maxInterimAnswers else { throw Failure.tooLarge("over \(Self.maxInterimAnswers) interim answers") }
            return
        }
        head = ResponseHead(status: status, headers: headers)
        let closes = headers.values(for: "connection").contains { $0.lowercased().contains("close") }
        persistent = statusLine[0] == "HTTP/1.1" && !closes
        // RFC 9112, 6.3: no body for these; then Transfer-Encoding, whose last coding must be chunked for the body
        // to end before the connection does; then Content-Length, whose values must agree.
        let codings = headers.values(for: "transfer-encoding").flatMap { $0.split(separator: ",") }.map { $0.trimmingSpaces.lowercased() }
        let lengths = Set(headers.values(for: "content-length").flatMap { $0.split(separator: ",") }.map(\.trimmingSpaces))
        if method == "HEAD" || status == 204 || status == 304 {
            stage = .done
        } else if !codings.isEmpty {
            if codings.last == "chunked" {
                stage = .chunkSize
            } else {
                stage = .untilClose
                persistent = false
            }
        } else if let length = lengths.first {
            guard lengths.count == 1, !length.isEmpty, length.count <= 18, length.utf8.allSatisfy(\.isDigit), let n = Int(length) else {
                throw Failure.malformed("Content-Length \"\(headers.values(for: "content-length").joined(separator: ", ").prefix(40))\"")
            }
            stage = n == 0 ? .done : .length(n)
        } else {
            stage = .untilClose
            persistent = false
        }
    }
}

private extension UInt8 {
    var isDigit: Bool { self >= 0x30 && self <= 0x39 }
    var isHexDigit: Bool { isDigit || (self >= 0x41 && self <= 0x46) || (self >= 0x61 && self <= 0x66) }
}

struct ResponseHead: Sendable {
    var status: Int
    var headers: HTTPHeaders
}
