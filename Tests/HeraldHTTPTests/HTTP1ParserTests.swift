import Testing
@testable import HeraldHTTP

/// RFC 9112 cases for the request parser. Each input is parsed twice, in one piece and one byte at a time,
/// and both must agree: a limit or a framing rule that held only for one way the bytes arrive is a defect.
@Suite struct HTTP1ParserTests {
    struct Parsed: Equatable {
        var heads: [HTTP1Parser.Head] = []
        var bodies: [[UInt8]] = []
        var failure: HTTP1Parser.Failure?
    }

    static func parse(_ input: [UInt8], pieceSize: Int, limits: HTTP1Limits = HTTP1Limits()) -> Parsed {
        var parser = HTTP1Parser(limits: limits)
        var result = Parsed()
        var body: [UInt8] = []
        var start = 0
        while start < input.count {
            let end = min(input.count, start + pieceSize)
            parser.append(Array(input[start..<end]))
            start = end
            do {
                while let event = try parser.next() {
                    switch event {
                    case let .head(h): result.heads.append(h)
                    case let .body(piece): body += piece
                    case .end: result.bodies.append(body); body = []
                    }
                }
            } catch {
                result.failure = error
                return result
            }
        }
        return result
    }

    static func parseBothWays(_ text: String, limits: HTTP1Limits = HTTP1Limits()) -> Parsed {
        let bytes = Array(text.utf8)
        let whole = parse(bytes, pieceSize: bytes.count, limits: limits)
        let bytewise = parse(bytes, pieceSize: 1, limits: limits)
        #expect(whole == bytewise, "parsing in one piece and byte by byte must agree")
        return whole
    }

    // MARK: accepted

    @Test func aSimpleGetHasNoBody() {
        let r = Self.parseBothWays("GET /healthz?x=1 HTTP/1.1\r\nHost: h\r\nUser-Agent:  curl/8 \r\n\r\n")
        #expect(r.failure == nil)
        #expect(r.heads.first?.method == "GET")
        #expect(r.heads.first?.target == "/healthz?x=1")
        #expect(r.heads.first?.headers["user-agent"] == "curl/8", "optional whitespace around a value is not part of it")
        #expect(r.heads.first?.framing == HTTPBodyFraming.none)
        #expect(r.bodies == [[]])
    }

    @Test func headerNamesArriveLowercaseWithTheirValuesAsSent() {
        let r = Self.parseBothWays("GET / HTTP/1.1\r\nHost: h\r\nX-LC-Key: AbC,master\r\nAUTHORIZATION: Bearer K\r\n\r\n")
        #expect(r.failure == nil)
        #expect(r.heads.first?.headers.fields.map(\.name) == ["host", "x-lc-key", "authorization"])
        #expect(r.heads.first?.headers["Authorization"] == "Bearer K", "lookups stay case-insensitive")
        #expect(r.heads.first?.headers["x-lc-key"] == "AbC,master")
    }

    @Test func contentLengthFramesTheBodyAndPipelinedRequestsFollow() {
        let r = Self.parseBothWays("POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhelloGET /b HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(r.failure == nil)
        #expect(r.heads.map(\.target) == ["/a", "/b"])
        #expect(r.bodies == [Array("hello".utf8), []])
    }

    @Test func chunkedBodiesWithExtensionsAndTrailersDecode() {
        let r = Self.parseBothWays("POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: Chunked\r\n\r\n3;name=value\r\nabc\r\nA \r\n0123456789\r\n0\r\nX-Trailer: t\r\n\r\n")
        #expect(r.failure == nil)
        #expect(r.heads.first?.framing == .chunked)
        #expect(r.bodies == [Array("abc0123456789".utf8)])
    }

    @Test func emptyLinesBeforeARequestAreIgnored() {
        let r = Self.parseBothWays("\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(r.failure == nil)
        #expect(r.heads.count == 1)
    }

    @Test func connectionPersistenceFollowsTheVersionAndConnectionHeader() {
        #expect(Self.parseBothWays("GET / HTTP/1.1\r\nHost: h\r\n\r\n").heads.first?.keepAlive == true)
        #expect(Self.parseBothWays("GET / HTTP/1.1\r\nHost: h\r\nConnection: keep-alive, Close\r\n\r\n").heads.first?.keepAlive == false)
        #expect(Self.parseBothWays("GET / HTTP/1.0\r\n\r\n").heads.first?.keepAlive == false)
        #expect(Self.parseBothWays("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").heads.first?.keepAlive == true)
    }

    @Test func anAbsoluteFormTargetRoutesByItsPath() {
        #expect(Self.parseBothWays("GET http://api.example/v1/a?b=1 HTTP/1.1\r\nHost: api.example\r\n\r\n").heads.first?.target == "/v1/a?b=1")
        #expect(Self.parseBothWays("OPTIONS HTTPS://h HTTP/1.1\r\nHost: h\r\n\r\n").heads.first?.target == "/")
    }

    @Test func leadingZerosInAChunkSizeAreNotDigitsThatCount() {
        let r = Self.parseBothWays("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n00000000000000000003\r\nabc\r\n0\r\n\r\n")
        #expect(r.failure == nil)
        #expect(r.bodies == [Array("abc".utf8)])
    }

    @Test func expectContinueIsRecognised() {
        let r = Self.parseBothWays("PUT /x HTTP/1.1\r\nHost: h\r\nExpect: 100-Continue\r\nContent-Length: 1\r\n\r\nz")
        #expect(r.heads.first?.expectsContinue == true)
    }

    // MARK: refused

    static let malformed: [(String, String)] = [
        ("a bare LF ends the request line", "GET / HTTP/1.1\nHost: h\r\n\r\n"),
        ("a bare LF hides a header", "GET / HTTP/1.1\r\nHost: h\nTransfer-Encoding: chunked\r\n\r\n"),
        ("a bare CR inside a value", "GET / HTTP/1.1\r\nHost: h\rX: y\r\n\r\n"),
        ("obsolete line folding", "GET / HTTP/1.1\r\nHost: h\r\nX-A: a\r\n  folded\r\n\r\n"),
        ("whitespace before the colon", "GET / HTTP/1.1\r\nHost : h\r\n\r\n"),
        ("a header without a colon", "GET / HTTP/1.1\r\nHost h\r\n\r\n"),
        ("Transfer-Encoding matched by substring", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: xchunked\r\n\r\n0\r\n\r\n"),
        ("chunked with another coding", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n"),
        ("an unknown coding", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n"),
        ("a second Transfer-Encoding", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n0\r\n\r\n"),
        ("Content-Length with Transfer-Encoding", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
        ("two different Content-Lengths", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd"),
        ("two equal Content-Lengths", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc"),
        ("a signed Content-Length", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: +7\r\n\r\nabcdefg"),
        ("a negative Content-Length", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n"),
        ("a list as Content-Length", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3, 3\r\n\r\nabc"),
        ("a hexadecimal Content-Length", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0x10\r\n\r\n"),
        ("an overflowing Content-Length", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999\r\n\r\n"),
        ("a negative chunk size", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\nab\r\n0\r\n\r\n"),
        ("a signed chunk size", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n+7\r\nabcdefg\r\n0\r\n\r\n"),
        ("an overflowing chunk size", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n7fffffffffffffff\r\nb\r\n0\r\n\r\n"),
        ("chunk data not followed by CRLF", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcXY0\r\n\r\n"),
        ("an empty chunk size", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n\r\n"),
        ("Transfer-Encoding in HTTP/1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
        ("no Host in HTTP/1.1", "GET / HTTP/1.1\r\nX: y\r\n\r\n"),
        ("two Hosts", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"),
        ("a request line with two spaces", "GET  / HTTP/1.1\r\nHost: h\r\n\r\n"),
        ("a target that is not a path", "GET evil/ HTTP/1.1\r\nHost: h\r\n\r\n"),
        ("a control byte in the target", "GET /a\u{01}b HTTP/1.1\r\nHost: h\r\n\r\n"),
        ("a method that is not a token", "G(T / HTTP/1.1\r\nHost: h\r\n\r\n"),
        ("a version that is not HTTP", "GET / FTP/1.1\r\nHost: h\r\n\r\n"),
    ]

    @Test(arguments: malformed)
    func malformedRequestsAreRefusedWith400(_ testCase: (String, String)) {
        let r = Self.parseBothWays(testCase.1)
        #expect(r.failure?.status == 400, "\(testCase.0)")
    }

    @Test func anotherHTTPVersionGets505() {
        #expect(Self.parseBothWays("GET / HTTP/2.0\r\nHost: h\r\n\r\n").failure == .versionNotSupported)
    }

    @Test func aLongRequestLineGets414HoweverItArrives() {
        let line = "GET /" + String(repeating: "a", count: 70_000) + " HTTP/1.1\r\nHost: h\r\n\r\n"
        #expect(Self.parseBothWays(line).failure?.status == 414)
        // Without its end the line fails as soon as the limit is passed, before more is kept.
        var parser = HTTP1Parser()
        parser.append(Array(("GET /" + String(repeating: "a", count: 9_000)).utf8))
        #expect(throws: HTTP1Parser.Failure.self) { try parser.next() }
    }

    @Test func tooManyHeadersGet431EvenInOneRead() {
        let headers = (0..<10_000).map { "X-\($0): v\r\n" }.joined()
        #expect(Self.parseBothWays("GET / HTTP/1.1\r\nHost: h\r\n" + headers + "\r\n").failure?.status == 431)
    }

    @Test func tooManyHeaderBytesGet431BeforeTheBlankLine() {
        let big = "GET / HTTP/1.1\r\nHost: h\r\nX-Big: " + String(repeating: "b", count: 70_000)
        #expect(Self.parseBothWays(big).failure?.status == 431)
        var limits = HTTP1Limits()
        limits.maxHeaderBytes = 100
        let many = "GET / HTTP/1.1\r\nHost: h\r\n" + String(repeating: "X-A: 0123456789\r\n", count: 8) + "\r\n"
        #expect(Self.parseBothWays(many, limits: limits).failure?.status == 431)
    }

    @Test func trailersCountAgainstTheHeaderLimits() {
        var limits = HTTP1Limits()
        limits.maxHeaderCount = 3
        let text = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n"
        #expect(Self.parseBothWays(text, limits: limits).failure?.status == 431)
    }

    @Test func chunkedDecodingIsLinearInTheInput() {
        // 2 MiB of 64-byte chunks, arriving 1 KiB at a time: each byte is looked at a bounded number of times.
        let chunk = "40\r\n" + String(repeating: "x", count: 64) + "\r\n"
        let body = String(repeating: chunk, count: 32_768) + "0\r\n\r\n"
        let input = Array(("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n" + body).utf8)
        var parser = HTTP1Parser()
        var received = 0
        var ended = false
        var start = 0
        while start < input.count {
            let end = min(input.count, start + 1024)
            parser.append(Array(input[start..<end]))
            start = end
            while let event = try? parser.next() {
                if case let .body(piece) = event { received += piece.count }
                if case .end = event { ended = true }
            }
        }
        #expect(ended)
        #expect(received == 64 * 32_768)
        #expect(parser.bytesExamined <= 2 * input.count, "examined \(parser.bytesExamined) bytes for an input of \(input.count)")
    }

    @Test func aBodyPieceHoldsOnlyItsOwnBytes() {
        // A streamed body queues its pieces for the handler (`HTTPBodyStream`) and bounds them by their
        // bytes. After the buffer has grown (a large read), small pieces must still be small, or each one
        // would keep a buffer of that size alive while it waits.
        var parser = HTTP1Parser()
        parser.append(Array("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 600000\r\n\r\n".utf8))
        guard case .head = try? parser.next() else { Issue.record("no head"); return }
        parser.append([UInt8](repeating: 0x61, count: 500_000))
        var pieces: [[UInt8]] = []
        for size in [500_000, 10, 10, 10, 10] {
            if size < 500_000 { parser.append([UInt8](repeating: 0x62, count: size)) }
            guard case let .body(piece)? = try? parser.next() else { Issue.record("no body piece"); return }
            #expect(piece.count == size)
            pieces.append(piece)
        }
        for piece in pieces.dropFirst() {
            #expect(piece.capacity < 1024, "a \(piece.count)-byte piece keeps \(piece.capacity) bytes")
        }
    }
}
