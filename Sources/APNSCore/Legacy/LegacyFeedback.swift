import Foundation

/// One record of the legacy feedback service: a token APNs found the app no longer installed
/// for, and when. Wire form: `timestamp(4) tokenLength(2) token`.
public struct LegacyFeedbackTuple: Sendable, Hashable {
    /// UNIX seconds at which APNs found the app gone.
    public var timestamp: UInt32
    /// The device token's bytes.
    public var deviceToken: [UInt8]

    public init(timestamp: UInt32, deviceToken: [UInt8]) {
        self.timestamp = timestamp
        self.deviceToken = deviceToken
    }

    /// A tuple for `date` (truncated to whole seconds).
    public init(date: Date, deviceToken: DeviceToken) {
        self.init(timestamp: UInt32(clamping: Int(date.timeIntervalSince1970.rounded(.down))), deviceToken: deviceToken.bytes)
    }

    /// ``timestamp`` as a date.
    public var date: Date { Date(timeIntervalSince1970: TimeInterval(timestamp)) }

    /// The token as a ``DeviceToken``, if its length is acceptable.
    public var token: DeviceToken? { try? DeviceToken(bytes: deviceToken) }

    /// The wire bytes.
    ///
    /// - Throws: ``LegacyCodecError`` when the token is empty or over 100 bytes.
    public func encoded() throws(LegacyCodecError) -> [UInt8] {
        guard !deviceToken.isEmpty, deviceToken.count <= LegacyNotification.tokenByteLimit else {
            throw LegacyCodecError(
                "a feedback token must be 1 to \(LegacyNotification.tokenByteLimit) bytes, got \(deviceToken.count)")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(6 + deviceToken.count)
        bytes.appendBigEndian(timestamp)
        bytes.appendBigEndian(UInt16(deviceToken.count))
        bytes.append(contentsOf: deviceToken)
        return bytes
    }
}

/// Reads feedback tuples from a byte stream delivered in arbitrary pieces.
public struct LegacyFeedbackDecoder: Sendable {
    private var queue = ByteQueue()
    private var failure: LegacyCodecError?

    public init() {}

    /// Bytes received but not yet part of a complete tuple; non-zero at end of stream means
    /// the server stopped mid-tuple.
    public var bufferedByteCount: Int { queue.count }

    /// Adds bytes read from the connection.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        queue.append(contentsOf: bytes)
    }

    /// The next complete tuple, or `nil` if more bytes are needed.
    ///
    /// - Throws: ``LegacyCodecError`` for a token length of 0 or over 100 (and on every call after).
    public mutating func next() throws(LegacyCodecError) -> LegacyFeedbackTuple? {
        if let failure { throw failure }
        guard queue.count >= 6 else { return nil }
        let length = Int(queue.uint16(at: 4))
        guard length > 0, length <= LegacyNotification.tokenByteLimit else {
            let error = LegacyCodecError(
                "feedback tuple declares a \(length)-byte token; tokens are 1 to \(LegacyNotification.tokenByteLimit) bytes")
            failure = error
            throw error
        }
        guard queue.count >= 6 + length else { return nil }
        let tuple = LegacyFeedbackTuple(timestamp: queue.uint32(at: 0), deviceToken: queue.bytes(at: 6, count: length))
        queue.consume(6 + length)
        return tuple
    }
}
