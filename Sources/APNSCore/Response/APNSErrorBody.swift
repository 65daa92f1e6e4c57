import Foundation

/// The JSON body APNs sends with an error status: `{"reason":"BadDeviceToken"}`, and for 410
/// also `"timestamp"`, the time in milliseconds since 1970 when the token stopped being valid.
///
/// The simulator encodes it, the client decodes it.
public struct APNSErrorBody: Sendable, Hashable {
    /// Why the request failed.
    public var reason: APNSReason
    /// Milliseconds since 1970 at which APNs learned the token was invalid (410 only), kept
    /// exact so it can be stored and compared with registration times.
    public var timestampMilliseconds: Int64?

    public init(reason: APNSReason, timestampMilliseconds: Int64? = nil) {
        self.reason = reason
        self.timestampMilliseconds = timestampMilliseconds
    }

    /// A body whose timestamp is `date`, truncated to whole milliseconds.
    public init(reason: APNSReason, timestamp date: Date) {
        self.init(reason: reason, timestampMilliseconds: Int64((date.timeIntervalSince1970 * 1000).rounded(.down)))
    }

    /// ``timestampMilliseconds`` as a date.
    public var timestamp: Date? {
        timestampMilliseconds.map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }

    /// Reads an error body. Unknown members are ignored; the timestamp may be an integer or a
    /// number with a fraction (truncated).
    ///
    /// - Throws: ``APNSDecodingError`` if the body is not a JSON object with a string `reason`.
    public init(jsonBytes: some Collection<UInt8>) throws(APNSDecodingError) {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: jsonBytes)
        } catch {
            throw APNSDecodingError(error)
        }
        guard let object = value.objectValue else {
            throw APNSDecodingError(path: nil, problem: "error body must be a JSON object, found \(value.kindDescription)")
        }
        guard let reason = object["reason"] else {
            throw APNSDecodingError(path: "reason", problem: "error body has no reason")
        }
        guard let reasonText = reason.stringValue else {
            throw APNSDecodingError(path: "reason", problem: "expected a string, found \(reason.kindDescription)")
        }
        self.reason = APNSReason(rawValue: reasonText)
        switch object["timestamp"] {
        case nil, .null?:
            timestampMilliseconds = nil
        case .int(let milliseconds)?:
            timestampMilliseconds = Int64(milliseconds)
        case .double(let milliseconds)? where milliseconds.isFinite && abs(milliseconds) < 9e18:
            timestampMilliseconds = Int64(milliseconds.rounded(.towardZero))
        case let other?:
            throw APNSDecodingError(path: "timestamp", problem: "expected milliseconds since 1970, found \(other.kindDescription)")
        }
    }

    /// Compact JSON: `{"reason":"…"}` or `{"reason":"…","timestamp":…}`.
    public func jsonBytes() -> [UInt8] {
        var writer = JSONWriter(capacity: 64)
        var first = true
        writer.writeRaw(UInt8(ascii: "{"))
        writer.writeStaticKey("reason", first: &first)
        writer.writeString(reason.rawValue)
        if let timestampMilliseconds {
            writer.writeStaticKey("timestamp", first: &first)
            writer.writeInt(Int(timestampMilliseconds))
        }
        writer.writeRaw(UInt8(ascii: "}"))
        return writer.bytes
    }
}
