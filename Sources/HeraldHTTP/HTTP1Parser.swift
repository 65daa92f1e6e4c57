/// Incremental HTTP/1.1 request parser: feed bytes, take complete requests.
/// Supports Content-Length and chunked bodies; rejects what it cannot frame safely.
struct HTTP1Parser {
    enum Failure: Error, Equatable {
        case malformed(String)
        case headersTooLarge
        case bodyTooLarge(limit: Int)
    }

    struct Head {
        var method: String
        var target: String
        var version: String
        var headers: HTTPHeaders
    }

    let maxHeaderBytes: Int
    let maxBodyBytes: Int
    private var buffer: [UInt8] = []
    private var offset = 0

    init(maxHeaderBytes: Int = 64 * 1024, maxBodyBytes: Int) {
        self.maxHeaderBytes = maxHeaderBytes
        self.maxBodyBytes = maxBodyBytes
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if offset > 0 && offset == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            offset = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete request, nil when more bytes are needed.
    mutating func next() throws(Failure) -> (Head, [UInt8])? {
        guard let headEnd = find(crlfcrlf, from: offset) else {
            if buffer.count - offset > maxHeaderBytes { throw .headersTooLarge }
            return nil
        }
        let head = try parseHead(buffer[offset..<headEnd])
        var cursor = headEnd + 4
        var body: [UInt8] = []
        if let te = head.headers["transfer-encoding"], te.lowercased().contains("chunked") {
            guard let (decoded, end) = try decodeChunked(from: cursor) else { return nil }
            body = decoded
            cursor = end
        } else if let cl = head.headers["content-length"] {
            guard let length = Int(cl.trimmingSpaces), length >= 0 else { throw .malformed("Content-Length is not a number") }
            if length > maxBodyBytes { throw .bodyTooLarge(limit: maxBodyBytes) }
            guard buffer.count - cursor >= length else { return nil }
            body = Array(buffer[cursor..<cursor + length])
            cursor += length
        }
        offset = cursor
        if offset == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity < 1 << 20)
            offset = 0
        }
        return (head, body)
    }

    private let crlfcrlf: [UInt8] = [13, 10, 13, 10]

    private func find(_ needle: [UInt8], from start: Int) -> Int? {
        guard buffer.count >= needle.count else { return nil }
        var i = start
        let last = buffer.count - needle.count
        while i <= last {
            if buffer[i] == needle[0] && buffer[i + 1] == needle[1] && (needle.count < 3 || (buffer[i + 2] == needle[2] && buffer[i + 3] == needle[3])) {
                return i
            }
            i += 1
        }
        return nil
    }

    private func parseHead(_ bytes: ArraySlice<UInt8>) throws(Failure) -> Head {
        let text = String(decoding: bytes, as: UTF8.self)
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)[...]
        guard let requestLine = lines.popFirst() else { throw .malformed("empty request") }
        let parts = requestLine.split(separator: " ")
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1.") else {
            throw .malformed("bad request line: expected `METHOD /path HTTP/1.1`")
        }
        var headers = HTTPHeaders()
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { throw .malformed("bad header line: \(line.prefix(80))") }
            headers.add(String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingSpaces)
        }
        return Head(method: String(parts[0]), target: String(parts[1]), version: String(parts[2]), headers: headers)
    }

    private func decodeChunked(from start: Int) throws(Failure) -> ([UInt8], Int)? {
        var cursor = start
        var body: [UInt8] = []
        while true {
            guard let lineEnd = find([13, 10], from: cursor) else { return nil }
            let sizeText = String(decoding: buffer[cursor..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingSpaces, radix: 16) else { throw .malformed("bad chunk size") }
            cursor = lineEnd + 2
            if size == 0 {
                guard let trailerEnd = find([13, 10], from: cursor) else { return nil }
                // Skip trailers (rare); the body ends at the first empty line.
                var end = trailerEnd
                while end != cursor {
                    cursor = end + 2
                    guard let e = find([13, 10], from: cursor) else { return nil }
                    end = e
                }
                return (body, end + 2)
            }
            if body.count + size > maxBodyBytes { throw .bodyTooLarge(limit: maxBodyBytes) }
            guard buffer.count - cursor >= size + 2 else { return nil }
            body.append(contentsOf: buffer[cursor..<cursor + size])
            cursor += size + 2
        }
    }
}

extension StringProtocol {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " || s.first == "\t" { s = s.dropFirst() }
        while s.last == " " || s.last == "\t" { s = s.dropLast() }
        return String(s)
    }
}
