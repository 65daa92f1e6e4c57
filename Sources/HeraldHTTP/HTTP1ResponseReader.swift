/// Reads one HTTP/1.1 response from a connection's bytes as they arrive: the head, then the body framed by
/// `Content-Length`, by chunks, or by the end of the connection. It also says whether the connection can carry
/// another request afterwards (`keepAlive`), which a pooled client needs to know before reusing it.
///
/// The peer is whatever a URL names (a webhook receiver, a proxy), so nothing it sends can make the reader
/// hold more than `maxHeadBytes` of head or `maxLineBytes` of a chunk's size line or trailer.
struct HTTP1ResponseReader {
    static let maxHeadBytes = 64 * 1024
    static let maxLineBytes = 4096

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

    private enum Stage { case head, length(Int), chunkSize, chunkData(Int), trailers, untilClose, done }

    private let method: String
    private var stage = Stage.head
    private var buffer: [UInt8] = []
    /// How much of `buffer` the search for the head's end has covered: a head that arrives a byte at a time is
    /// searched once, not once per byte.
    private var headSearched = 0
    private(set) var head: ResponseHead?
    /// HTTP/1.1 without `Connection: close`.
    private var persistent = false

    init(method: String) { self.method = method }

    var isComplete: Bool { if case .done = stage { true } else { false } }

    /// The response is complete and the connection can carry another request: HTTP/1.1 without `Connection:
    /// close`, a body whose end came from its framing rather than the connection's, and nothing sent after it.
    var keepAlive: Bool { isComplete && persistent && buffer.isEmpty }

    /// Takes the next bytes; `onBody` gets each piece of the body. Throws on a response it cannot read.
    mutating func read(_ bytes: UnsafeRawBufferPointer, onBody: ([UInt8]) -> Void) throws {
        if case .done = stage {
            buffer.append(contentsOf: bytes)   // unasked-for bytes: the connection is not reused
            return
        }
        buffer.append(contentsOf: bytes)
        try advance(onBody: onBody)
    }

    /// The connection ended. A body delimited by the end is complete now; a response without a head is an error.
    mutating func endOfStream() throws {
        guard head != nil else { throw Failure.malformed("the connection closed before the status line and headers") }
        stage = .done
        persistent = false
    }

    private mutating func advance(onBody: ([UInt8]) -> Void) throws {
        while true {
            switch stage {
            case .head:
                guard let end = buffer[max(0, headSearched - 3)...].firstRange(of: [13, 10, 13, 10]) else {
                    headSearched = buffer.count
                    if buffer.count > Self.maxHeadBytes { throw Failure.tooLarge("head over \(Self.maxHeadBytes) bytes") }
                    return
                }
                guard end.lowerBound <= Self.maxHeadBytes else { throw Failure.tooLarge("head over \(Self.maxHeadBytes) bytes") }
                try parseHead(String(decoding: buffer[..<end.lowerBound], as: UTF8.self))
                buffer.removeSubrange(..<end.upperBound)
                headSearched = 0
            case .length(let left):
                let take = min(left, buffer.count)
                if take > 0 { onBody(Array(buffer[..<take])); buffer.removeSubrange(..<take) }
                stage = left == take ? .done : .length(left - take)
                if left > take { return }
            case .chunkSize:
                guard let line = try takeLine() else { return }
                let size = line.split(separator: ";", maxSplits: 1).first.map { String($0).trimmingSpaces } ?? ""
                guard let n = Int(size, radix: 16), n >= 0 else { throw Failure.malformed("chunk size \"\(size.prefix(32))\"") }
                stage = n == 0 ? .trailers : .chunkData(n + 2)   // the data, then its CRLF
            case .chunkData(let left):
                guard !buffer.isEmpty else { return }
                let take = min(left, buffer.count)
                let data = min(take, max(0, left - 2))
                if data > 0 { onBody(Array(buffer[..<data])) }
                buffer.removeSubrange(..<take)
                stage = left == take ? .chunkSize : .chunkData(left - take)
            case .trailers:
                guard let line = try takeLine() else { return }
                if line.isEmpty { stage = .done }
            case .untilClose:
                if !buffer.isEmpty { onBody(buffer); buffer.removeAll() }
                return
            case .done:
                return
            }
        }
    }

    /// The next CRLF-terminated line, without it; nil until it has arrived.
    private mutating func takeLine() throws -> String? {
        guard let end = buffer.firstRange(of: [13, 10]) else {
            if buffer.count > Self.maxLineBytes { throw Failure.tooLarge("a chunk line over \(Self.maxLineBytes) bytes") }
            return nil
        }
        let line = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
        buffer.removeSubrange(..<end.upperBound)
        return line
    }

    private mutating func parseHead(_ text: String) throws {
        var lines = text.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ", maxSplits: 2)
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]), (100...999).contains(status) else {
            throw Failure.malformed("status line \"\(text.prefix(40))\"")
        }
        var headers = HTTPHeaders()
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.add(String(line[..<colon]), line[line.index(after: colon)...].trimmingSpaces)
        }
        // An interim answer (100 Continue) is followed by the real one.
        if (100..<200).contains(status) && status != 101 { return }
        head = ResponseHead(status: status, headers: headers)
        let closes = headers.values(for: "connection").contains { $0.lowercased().contains("close") }
        persistent = statusLine[0] == "HTTP/1.1" && !closes
        if method == "HEAD" || status == 204 || status == 304 {
            stage = .done
        } else if headers["transfer-encoding"]?.lowercased().contains("chunked") ?? false {
            stage = .chunkSize
        } else if let length = headers["content-length"] {
            guard let n = Int(length.trimmingSpaces), n >= 0 else { throw Failure.malformed("Content-Length \"\(length.prefix(32))\"") }
            stage = n == 0 ? .done : .length(n)
        } else {
            stage = .untilClose
            persistent = false
        }
    }
}

struct ResponseHead: Sendable {
    var status: Int
    var headers: HTTPHeaders
}
