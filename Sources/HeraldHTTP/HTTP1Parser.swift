import Foundation

/// Incremental HTTP/1.1 request parser (RFC 9112): feed bytes with `append`, take events with `next`.
///
/// It is strict where leniency lets two parsers disagree about where a request ends (request smuggling):
/// lines end in CRLF only, obsolete line folding is refused, `Transfer-Encoding` must be exactly `chunked`
/// and cannot be combined with `Content-Length`, a length is digits only and appears once, and the CRLF
/// after chunk data is checked. Every byte is examined a bounded number of times, so the work is linear in
/// the input however it is split, and the limits in `HTTP1Limits` hold before the bytes past them are kept.
struct HTTP1Parser {
    enum Event: Equatable {
        /// A request head; `.body` pieces (if any) and `.end` follow.
        case head(Head)
        case body([UInt8])
        /// The request is complete; the next bytes begin another request.
        case end
    }

    struct Head: Equatable {
        var method: String
        var target: String
        var version: String
        var headers: HTTPHeaders
        var framing: HTTPBodyFraming
        /// False when the client asked to close after this request (or speaks HTTP/1.0 without keep-alive).
        var keepAlive: Bool
        /// `Expect: 100-continue`: the client waits for a go-ahead before sending the body.
        var expectsContinue: Bool
    }

    enum Failure: Error, Equatable {
        case malformed(String)
        case requestLineTooLong(limit: Int)
        case headersTooLarge(String)
        case versionNotSupported

        var status: Int {
            switch self {
            case .malformed: 400
            case .requestLineTooLong: 414
            case .headersTooLarge: 431
            case .versionNotSupported: 505
            }
        }

        var code: String {
            switch self {
            case .malformed: "bad_request"
            case .requestLineTooLong: "uri_too_long"
            case .headersTooLarge: "headers_too_large"
            case .versionNotSupported: "http_version_not_supported"
            }
        }

        var message: String {
            switch self {
            case let .malformed(why): "Malformed HTTP/1.1 request: \(why)."
            case let .requestLineTooLong(limit): "The request line is longer than \(limit) bytes; shorten the URL or move data into the body."
            case let .headersTooLarge(why): "Request headers are too large: \(why)."
            case .versionNotSupported: "Only HTTP/1.1 and HTTP/1.0 are served on this port."
            }
        }
    }

    private enum State: Equatable {
        case requestLine
        case headerLines
        case fixedBody(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailerLines
        case endOfMessage
        case failed
    }

    /// Chunk size lines carry optional extensions, which are ignored; this bounds them.
    static let maxChunkLineBytes = 4096

    let limits: HTTP1Limits
    private var buffer: [UInt8] = []
    /// The first byte not yet consumed.
    private var offset = 0
    /// Bytes after `offset` already searched for a line end, so a line arriving in pieces is scanned once.
    private var scanned = 0
    private var state = State.requestLine
    private var partial: Head?
    /// Header bytes and fields of the current request so far (trailers included).
    private var headerBytes = 0
    private var headerCount = 0
    /// Bytes searched or copied so far: the tests' check that the work stays linear in the input.
    private(set) var bytesExamined = 0

    init(limits: HTTP1Limits = HTTP1Limits()) {
        self.limits = limits
    }

    /// Bytes received and not yet consumed: pipelined requests wait here while one is answered.
    var bufferedBytes: Int { buffer.count - offset }

    /// True between requests with nothing of the next one received.
    var isBetweenRequests: Bool { state == .requestLine && offset == buffer.count }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if offset == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 20)
            offset = 0
        } else if offset >= 64 * 1024 && offset * 2 >= buffer.count {
            // Amortised: what stays is at most what was consumed, so each byte is moved O(1) times.
            buffer.removeSubrange(0..<offset)
            offset = 0
        }
        buffer.append(contentsOf: bytes)
    }

    mutating func append(_ bytes: [UInt8]) { bytes.withUnsafeBytes { append($0) } }

    /// The next event, nil when more bytes are needed. After a failure the parser stays failed.
    mutating func next() throws(Failure) -> Event? {
        do {
            return try step()
        } catch {
            state = .failed
            throw error
        }
    }

    private mutating func step() throws(Failure) -> Event? {
        while true {
            switch state {
            case .failed:
                return nil
            case .requestLine:
                let limit = limits.maxRequestLineBytes
                guard let line = try line(limit: limit, tooLong: .requestLineTooLong(limit: limit)) else { return nil }
                // RFC 9112 §2.2: empty lines before a request line are ignored.
                if line.isEmpty { continue }
                partial = try parseRequestLine(line)
                headerBytes = 0
                headerCount = 0
                state = .headerLines
            case .headerLines:
                guard let line = try headerLine() else { return nil }
                if line.isEmpty {
                    let head = try finishHead()
                    switch head.framing {
                    case .none: state = .endOfMessage
                    case let .length(n): state = .fixedBody(remaining: n)
                    case .chunked: state = .chunkSize
                    }
                    return .head(head)
                }
                let (name, value) = try parseField(line)
                partial?.headers.add(name, value)
            case let .fixedBody(remaining):
                guard let piece = take(remaining) else { return nil }
                state = remaining == piece.count ? .endOfMessage : .fixedBody(remaining: remaining - piece.count)
                return .body(piece)
            case .chunkSize:
                guard let line = try line(limit: Self.maxChunkLineBytes, tooLong: .malformed("a chunk size line is longer than \(Self.maxChunkLineBytes) bytes")) else { return nil }
                let size = try parseChunkSize(line)
                state = size == 0 ? .trailerLines : .chunkData(remaining: size)
            case let .chunkData(remaining):
                guard let piece = take(remaining) else { return nil }
                state = remaining == piece.count ? .chunkDataEnd : .chunkData(remaining: remaining - piece.count)
                return .body(piece)
            case .chunkDataEnd:
                guard buffer.count - offset >= 2 else {
                    if offset < buffer.count && buffer[offset] != 0x0D { throw .malformed("chunk data must be followed by CRLF") }
                    return nil
                }
                guard buffer[offset] == 0x0D, buffer[offset + 1] == 0x0A else { throw .malformed("chunk data must be followed by CRLF") }
                offset += 2
                state = .chunkSize
            case .trailerLines:
                // Trailer fields count against the header limits and are then dropped: nothing here uses them.
                guard let line = try headerLine() else { return nil }
                if line.isEmpty { state = .endOfMessage } else { _ = try parseField(line) }
            case .endOfMessage:
                state = .requestLine
                partial = nil
                return .end
            }
        }
    }

    // MARK: lines

    /// The next CRLF-terminated line without its CRLF, nil when it has not all arrived. A line longer than
    /// `limit` fails as soon as that many bytes are here, with or without its end.
    /// `tooLong` is built only when thrown: a message interpolated per header line was 15% of the parser's
    /// work on a registration's five header lines.
    private mutating func line(limit: Int, tooLong: @autoclosure () -> Failure) throws(Failure) -> ArraySlice<UInt8>? {
        let start = offset + scanned
        let lf: Int? = buffer.withUnsafeBytes { raw in
            guard start < raw.count, let p = memchr(raw.baseAddress! + start, 0x0A, raw.count - start) else { return nil }
            return raw.baseAddress!.distance(to: UnsafeRawPointer(p))
        }
        bytesExamined += (lf.map { $0 + 1 } ?? buffer.count) - start
        guard let lf else {
            scanned = buffer.count - offset
            // The line's CR may be here already; it does not count against the limit.
            if scanned - 1 > limit { throw tooLong() }
            return nil
        }
        guard lf > offset, buffer[lf - 1] == 0x0D else { throw .malformed("a line ends in a bare LF; lines end in CRLF") }
        let line = buffer[offset..<(lf - 1)]
        if line.count > limit { throw tooLong() }
        offset = lf + 1
        scanned = 0
        return line
    }

    /// A header or trailer line, counted against the request's header limits.
    private mutating func headerLine() throws(Failure) -> ArraySlice<UInt8>? {
        let maxHeaderBytes = limits.maxHeaderBytes
        let room = max(0, maxHeaderBytes - headerBytes)
        guard let line = try line(limit: room, tooLong: .headersTooLarge("more than \(maxHeaderBytes) bytes of header fields")) else { return nil }
        headerBytes += line.count + 2
        if !line.isEmpty {
            headerCount += 1
            if headerCount > limits.maxHeaderCount { throw .headersTooLarge("more than \(limits.maxHeaderCount) header fields") }
        }
        return line
    }

    private mutating func take(_ remaining: Int) -> [UInt8]? {
        let available = buffer.count - offset
        guard available > 0 else { return nil }
        let n = min(available, remaining)
        bytesExamined += n
        // Copied through a pointer, never `Array(buffer[...])`: a slice that spans the whole buffer becomes an
        // array sharing the buffer's storage, whatever its capacity. The next `append` then allocates another
        // buffer of that capacity, and every body piece queued for a slow reader kept one alive: 44 MiB held
        // for 256 KiB of queued body during a 10,000,000-line import (docs/performance.md).
        let piece = buffer.withUnsafeBufferPointer { Array($0[offset..<(offset + n)]) }
        offset += n
        return piece
    }

    // MARK: request line and fields

    private func parseRequestLine(_ line: ArraySlice<UInt8>) throws(Failure) -> Head {
        let space = UInt8(ascii: " ")
        guard let firstSpace = line.firstIndex(of: space),
              let secondSpace = line[(firstSpace + 1)...].firstIndex(of: space) else {
            throw .malformed("the request line must be `METHOD /path HTTP/1.1`")
        }
        let method = line[line.startIndex..<firstSpace]
        let target = line[(firstSpace + 1)..<secondSpace]
        let version = line[(secondSpace + 1)...]
        guard !method.isEmpty, method.allSatisfy(Self.isTokenByte) else { throw .malformed("the method must be a token such as GET or POST") }
        guard !target.isEmpty, target.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .malformed("the request target must be visible ASCII with no spaces; percent-encode other bytes")
        }
        let versionText = String(decoding: version, as: UTF8.self)
        guard versionText == "HTTP/1.1" || versionText == "HTTP/1.0" else {
            if versionText.utf8.count == 8, versionText.hasPrefix("HTTP/"), versionText.utf8.allSatisfy({ $0 >= 0x2E && $0 <= 0x7A }) {
                throw .versionNotSupported
            }
            throw .malformed("the request line must end in HTTP/1.1")
        }
        let methodText = String(decoding: method, as: UTF8.self)
        var targetText = String(decoding: target, as: UTF8.self)
        if let path = Self.originForm(ofAbsolute: targetText) {
            // RFC 9112 §3.2.2: a server accepts the absolute form; the path is what routes.
            targetText = path
        } else if !(target.first == UInt8(ascii: "/") || (targetText == "*" && methodText == "OPTIONS")) {
            throw .malformed("the request target must be a path starting with /")
        }
        return Head(method: methodText, target: targetText, version: versionText, headers: HTTPHeaders(),
                    framing: .none, keepAlive: true, expectsContinue: false)
    }

    private func parseField(_ line: ArraySlice<UInt8>) throws(Failure) -> (String, String) {
        guard let first = line.first, first != 0x20, first != 0x09 else {
            throw .malformed("a header line starts with whitespace (obsolete line folding is not accepted)")
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { throw .malformed("a header line has no colon") }
        let name = line[line.startIndex..<colon]
        guard !name.isEmpty, name.allSatisfy(Self.isTokenByte) else {
            throw .malformed("the header name `\(String(decoding: name.prefix(40), as: UTF8.self))` is not a token (no spaces before the colon)")
        }
        var value = line[(colon + 1)...]
        while let b = value.first, b == 0x20 || b == 0x09 { value = value.dropFirst() }
        while let b = value.last, b == 0x20 || b == 0x09 { value = value.dropLast() }
        // Control bytes (a bare CR among them) could end the line for another parser and hide a header.
        guard value.allSatisfy({ $0 >= 0x20 && $0 != 0x7F || $0 == 0x09 }) else {
            throw .malformed("the value of \(String(decoding: name, as: UTF8.self)) contains a control character")
        }
        // Names are kept lowercase, as HTTP/2 sends them: every lookup (a request makes ~40) then settles
        // on plain equality instead of walking `Authorization` against `authorization` byte by byte.
        let lowercased = String(unsafeUninitializedCapacity: name.count) { out in
            for (i, byte) in name.enumerated() { out[i] = (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }
            return name.count
        }
        return (lowercased, String(decoding: value, as: UTF8.self))
    }

    /// Decides the body framing (RFC 9112 §6) and the connection's fate once the head is complete.
    private func finishHead() throws(Failure) -> Head {
        guard var head = partial else { throw .malformed("no request line") }
        let headers = head.headers
        let hosts = headers.values(for: "host")
        if hosts.count > 1 { throw .malformed("more than one Host header") }
        if hosts.isEmpty && head.version == "HTTP/1.1" { throw .malformed("HTTP/1.1 requests need a Host header") }

        let transferEncodings = headers.values(for: "transfer-encoding")
        let lengths = headers.values(for: "content-length")
        if !transferEncodings.isEmpty {
            if head.version == "HTTP/1.0" { throw .malformed("Transfer-Encoding is not allowed in HTTP/1.0 requests") }
            if !lengths.isEmpty { throw .malformed("a request cannot have both Content-Length and Transfer-Encoding") }
            guard transferEncodings.count == 1, transferEncodings[0].lowercased() == "chunked" else {
                throw .malformed("Transfer-Encoding must be exactly `chunked` (one header, no other codings)")
            }
            head.framing = .chunked
        } else if !lengths.isEmpty {
            guard lengths.count == 1 else { throw .malformed("more than one Content-Length header") }
            let digits = lengths[0].utf8
            guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let n = Int(lengths[0]) else {
                throw .malformed("Content-Length must be a decimal number of bytes")
            }
            head.framing = n == 0 ? .none : .length(n)
        }

        let connection = headers.values(for: "connection").flatMap { $0.split(separator: ",") }.map { $0.trimmingSpaces.lowercased() }
        head.keepAlive = head.version == "HTTP/1.1" ? !connection.contains("close") : connection.contains("keep-alive")
        head.expectsContinue = headers["expect"]?.lowercased() == "100-continue" && head.version == "HTTP/1.1"
        return head
    }

    private func parseChunkSize(_ line: ArraySlice<UInt8>) throws(Failure) -> Int {
        var size = 0
        var digits = 0
        var index = line.startIndex
        var sawDigit = false
        while index < line.endIndex, let value = Self.hexValue(line[index]) {
            sawDigit = true
            // Leading zeros add nothing and do not count against the digit limit.
            if size != 0 || value != 0 { digits += 1 }
            // 15 hex digits is 2^60 bytes: far past any limit, and the sum cannot overflow.
            guard digits <= 15 else { throw .malformed("the chunk size is too large") }
            size = size << 4 | value
            index += 1
        }
        guard sawDigit else { throw .malformed("a chunk size must be hexadecimal digits") }
        var rest = line[index...]
        while let b = rest.first, b == 0x20 || b == 0x09 { rest = rest.dropFirst() }
        guard rest.isEmpty || rest.first == UInt8(ascii: ";") else { throw .malformed("a chunk size must be hexadecimal digits") }
        guard rest.allSatisfy({ $0 >= 0x20 && $0 != 0x7F || $0 == 0x09 }) else { throw .malformed("a chunk extension contains a control character") }
        return size
    }

    /// `/path?query` of an absolute-form target (`http://host/path?query`), nil for any other form.
    private static func originForm(ofAbsolute target: String) -> String? {
        let lower = target.lowercased()
        guard let scheme = ["http://", "https://"].first(where: { lower.hasPrefix($0) }) else { return nil }
        let rest = target.dropFirst(scheme.count)
        guard let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return "/" }
        let path = String(rest[slash...])
        return path.hasPrefix("?") ? "/" + path : path
    }

    private static func hexValue(_ b: UInt8) -> Int? {
        switch b {
        case 0x30...0x39: Int(b - 0x30)
        case 0x41...0x46: Int(b - 0x41 + 10)
        case 0x61...0x66: Int(b - 0x61 + 10)
        default: nil
        }
    }

    /// RFC 9110 §5.6.2 `tchar`.
    private static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
             UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"): true
        default: false
        }
    }
}

extension StringProtocol {
    /// Without the spaces and tabs around it (HTTP's optional white space), in Swift: Foundation's
    /// `trimmingCharacters(in: .whitespaces)` cost a LeanCloud request ~5% of its CPU on Linux.
    public var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " || s.first == "\t" { s = s.dropFirst() }
        while s.last == " " || s.last == "\t" { s = s.dropLast() }
        return String(s)
    }
}
