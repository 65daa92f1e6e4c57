import Foundation
import HeraldCrypto
import HeraldHTTP
import HeraldIO
import HeraldJSON
import HeraldStore

/// Builds, signs and POSTs one webhook delivery. Connections to a receiver are kept open between POSTs
/// (`connections`, `webhooks.keepAlive`): a fan-out's failures arrive as thousands of batches, and a
/// connection (with TLS, a handshake at both ends) per batch cost more than the batch. Redirects are not
/// followed (a 3xx is a failed attempt); the answer's body is read only up to
/// `WebhookAttemptRecord.maxBodyBytes` and the whole exchange is bounded by `webhooks.timeout`.
struct WebhookSender: Sendable {
    private let tls: Result<TLSContext, Error>
    let timeout: Double
    let allowHTTP: Bool
    /// Nil when `webhooks.keepAlive` is 0.
    let connections: HTTP1ConnectionPool?

    init(settings: WebhookSettings) {
        let trust: TLSTrust = settings.caFile.map { .caFile($0) } ?? .system
        tls = Result { try TLSContext(client: TLSClientConfiguration(trust: trust, alpn: [])) }
        timeout = settings.timeout
        allowHTTP = settings.allowHttp
        connections = settings.keepAlive > 0 ? HTTP1ConnectionPool(idleTimeout: .milliseconds(Int64(settings.keepAlive * 1000))) : nil
    }

    /// The request body: `{"events":[...]}` with each stored event's data inserted as it is.
    static func body(_ events: [WebhookEvent]) -> [UInt8] {
        var writer = JSONWriter(capacity: events.reduce(16) { $0 + $1.data.utf8.count + 192 })
        writer.writeRaw(0x7B)
        var first = true
        writer.writeKey("events", first: &first)
        writer.writeRaw(0x5B)
        for (i, e) in events.enumerated() {
            if i > 0 { writer.writeRaw(0x2C) }
            writer.writeRaw(0x7B)
            var firstField = true
            writer.writeKey("id", first: &firstField)
            writer.writeString(e.id)
            writer.writeKey("type", first: &firstField)
            writer.writeString(e.type)
            writer.writeKey("createdAt", first: &firstField)
            writer.writeString(EventValue.iso8601(e.createdAt))
            writer.writeKey("appId", first: &firstField)
            writer.writeString(e.appID)
            writer.writeKey("data", first: &firstField)
            writer.bytes.append(contentsOf: e.data.utf8)
            writer.writeRaw(0x7D)
        }
        writer.writeRaw(0x5D)
        writer.writeRaw(0x7D)
        return writer.bytes
    }

    /// `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" keyed with the secret's UTF-8 bytes>`.
    static func signature(secret: String, timestamp: Int, body: [UInt8]) -> String {
        let mac = Digest.hmacSHA256(key: Array(secret.utf8), message: Array("\(timestamp).".utf8) + body)
        return "t=\(timestamp),v1=\(hexString(mac))"
    }

    /// POSTs `body`; never throws: what happened is the attempt's record.
    func post(_ body: [UInt8], to url: String, headers: [(String, String)], at: Date) async -> WebhookAttemptRecord {
        let started = ContinuousClock.now
        func record(status: Int?, body: [UInt8] = [], error: String?) -> WebhookAttemptRecord {
            let elapsed = ContinuousClock.now - started
            let ms = Int(elapsed.components.seconds * 1000) + Int(elapsed.components.attoseconds / 1_000_000_000_000_000)
            let text = body.isEmpty ? nil : String(decoding: body.prefix(WebhookAttemptRecord.maxBodyBytes), as: UTF8.self)
            return WebhookAttemptRecord(number: 0, at: at, status: status, body: text, error: error, latencyMilliseconds: ms)
        }
        let target: WebhookURL
        do { target = try WebhookURL.parse(url, allowHTTP: allowHTTP) } catch { return record(status: nil, error: "\(error)") }
        var tlsContext: TLSContext?
        if target.secure {
            switch tls {
            case .success(let context): tlsContext = context
            case .failure(let error): return record(status: nil, error: "TLS setup failed (webhooks.caFile?): \(error)")
            }
        }
        var requestHeaders = HTTPHeaders()
        requestHeaders.add("Content-Type", "application/json")
        requestHeaders.add("User-Agent", "Herald-Webhooks/1")
        for (name, value) in headers { requestHeaders.add(name, value) }
        let request = HTTPRequest(method: "POST", target: target.target, headers: requestHeaders, body: body)
        let client = HTTP1Client(host: target.host, port: target.port, tls: tlsContext, pool: connections)
        let kept = CappedBytes(limit: WebhookAttemptRecord.maxBodyBytes)
        let limit = timeout
        do {
            let status = try await withThrowingTaskGroup(of: Int?.self) { group in
                group.addTask {
                    try await client.stream(request, timeout: .milliseconds(Int64(limit * 1000))) { kept.append($0) }.status
                }
                group.addTask {
                    try await Task.sleep(for: .milliseconds(Int64(limit * 1000)))
                    return nil
                }
                defer { group.cancelAll() }
                return try await group.next() ?? nil
            }
            guard let status else { return record(status: nil, body: kept.bytes, error: "no complete answer within \(limit) s") }
            return record(status: status, body: kept.bytes, error: nil)
        } catch {
            return record(status: nil, error: "\(error)")
        }
    }
}

/// The first bytes of a body; the rest is read and dropped.
private final class CappedBytes: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [UInt8] = []
    let limit: Int
    init(limit: Int) { self.limit = limit }
    func append(_ b: [UInt8]) {
        lock.lock(); defer { lock.unlock() }
        if storage.count < limit { storage += b.prefix(limit - storage.count) }
    }
    var bytes: [UInt8] { lock.lock(); defer { lock.unlock() }; return storage }
}
