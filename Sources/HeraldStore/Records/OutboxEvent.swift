import Foundation
import HeraldJSON

/// An event about to be written to the outbox, with its `data` already as JSON text. Both stores build
/// events here, so their shapes are the same whatever the engine (docs/webhooks.md lists them).
public struct OutboxEvent: Sendable, Equatable {
    public var type: WebhookEventType
    public var data: String

    public init(_ type: WebhookEventType, _ fields: [(String, EventValue)]) {
        self.type = type
        data = EventValue.object(fields).json
    }

    /// `push.done`, `push.failed` or `push.cancelled`, from the push row as the same transaction left it.
    public static func pushFinished(_ push: PushRecord, failures: [String: Int]) -> OutboxEvent? {
        let type: WebhookEventType
        switch push.status {
        case .done: type = .pushDone
        case .failed: type = .pushFailed
        case .cancelled: type = .pushCancelled
        default: return nil
        }
        let c = push.counts
        var fields: [(String, EventValue)] = [
            ("pushId", .string(push.id)), ("status", .string(push.status.rawValue)),
            ("counts", .object([("targeted", .int(c.targeted)), ("sent", .int(c.sent)), ("failed", .int(c.failed)),
                                ("retired", .int(c.retired)), ("opened", .int(c.opened)), ("cancelled", .int(c.cancelled))])),
            ("failures", .object(failures.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) })),
            ("finishedAt", .date(push.finishedAt)),
        ]
        if type == .pushFailed {
            fields.append(("error", .object([("code", .text(push.errorCode)), ("message", .text(push.errorMessage))])))
        }
        return OutboxEvent(type, fields)
    }

    public static func installationRetired(installationID: String, deviceToken: String, reason: String, timestamp: Date?, pushID: String) -> OutboxEvent {
        OutboxEvent(.installationRetired, [("installationId", .string(installationID)), ("deviceToken", .string(deviceToken)),
                                           ("reason", .string(reason)), ("timestamp", .date(timestamp)), ("pushId", .string(pushID))])
    }

    public static func deliveryFailed(pushID: String, installationID: String, deviceToken: String, reason: String, status: Int?) -> OutboxEvent {
        OutboxEvent(.deliveryFailed, [("pushId", .string(pushID)), ("installationId", .string(installationID)),
                                      ("deviceToken", .string(deviceToken)), ("reason", .string(reason)),
                                      ("status", status.map { .int($0) } ?? .null)])
    }

    public static func opened(pushID: String, installationID: String, at: Date) -> OutboxEvent {
        OutboxEvent(.notificationOpened, [("pushId", .string(pushID)), ("installationId", .string(installationID)), ("openedAt", .date(at))])
    }

    /// `app.paused` and, since every pause is a credential APNs (or the server's key) rejected, `credential.rejected`.
    public static func paused(environment: String?, reason: String) -> [OutboxEvent] {
        let fields: [(String, EventValue)] = [("environment", .text(environment)), ("reason", .string(reason))]
        return [OutboxEvent(.appPaused, fields), OutboxEvent(.credentialRejected, fields)]
    }

    public static func resumed(environment: String?, reason: String) -> OutboxEvent {
        OutboxEvent(.appResumed, [("environment", .text(environment)), ("reason", .string(reason))])
    }
}

/// The few JSON values event data holds, written without Foundation's encoders (this runs inside store
/// transactions on the hot path of a fan-out).
public enum EventValue: Sendable {
    case string(String)
    case int(Int)
    case null
    case object([(String, EventValue)])

    static func text(_ s: String?) -> EventValue { s.map(EventValue.string) ?? .null }
    static func date(_ d: Date?) -> EventValue { d.map { .string(EventValue.iso8601($0)) } ?? .null }

    public var json: String {
        var writer = JSONWriter(capacity: 256)
        write(to: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Into bytes, each string copied in runs of its UTF-8: a fan-out that retires tokens builds two events per
    /// token inside its page's transaction, on the store's one writer, and appending them to a `String` one
    /// Unicode scalar at a time was 6% of such a fan-out's CPU (docs/performance.md, "Round 17").
    private func write(to writer: inout JSONWriter) {
        switch self {
        case .string(let s): writer.writeString(s)
        case .int(let n): writer.writeInt(n)
        case .null: writer.writeNull()
        case .object(let fields):
            writer.writeRaw(0x7B)
            var first = true
            for (key, value) in fields {
                writer.writeKey(key, first: &first)
                value.write(to: &writer)
            }
            writer.writeRaw(0x7D)
        }
    }

    /// UTC with milliseconds, as the REST API writes times (`2026-05-01T08:00:00.000Z`): `ISO8601Timestamp`'s
    /// 24 bytes for years 0-9999, `gmtime_r` for others.
    public static func iso8601(_ date: Date) -> String {
        let ms = Int64((date.timeIntervalSince1970 * 1000).rounded())
        if let text = ISO8601Timestamp.utc(millisecondsSince1970: ms) { return text }
        return iso8601Padded(ms: ms, seconds: ms >= 0 ? ms / 1000 : (ms - 999) / 1000)
    }

    /// Any year, through `gmtime_r`.
    static func iso8601Padded(ms: Int64, seconds: Int64) -> String {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        // Zero-padded by hand: String(format:) costs microseconds per call, and this runs per event.
        func pad(_ n: Int, _ width: Int) -> String {
            let digits = String(n)
            return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
        }
        return pad(Int(parts.tm_year) + 1900, 4) + "-" + pad(Int(parts.tm_mon) + 1, 2) + "-" + pad(Int(parts.tm_mday), 2) + "T"
            + pad(Int(parts.tm_hour), 2) + ":" + pad(Int(parts.tm_min), 2) + ":" + pad(Int(parts.tm_sec), 2) + "."
            + pad(Int(ms - seconds * 1000), 3) + "Z"
    }
}
