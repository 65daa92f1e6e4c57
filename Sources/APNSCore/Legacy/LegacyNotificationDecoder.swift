/// Reads binary-protocol notifications from a byte stream delivered in arbitrary pieces, as a
/// socket delivers them: ``append(_:)`` what arrived, then call ``next()`` until it returns `nil`.
///
/// Lengths are checked as soon as their header bytes arrive, so an oversized token or payload
/// is refused before its bytes are buffered. The first malformed notification ends the stream,
/// as the gateway ends the connection: ``next()`` throws a ``LegacyDecodingError`` carrying the
/// error-response packet to send, and keeps throwing it afterwards.
public struct LegacyNotificationDecoder: Sendable {
    /// Largest command-2 frame: every documented item at its maximum size.
    public static let maximumFrameLength =
        5 * 3 + LegacyNotification.tokenByteLimit + LegacyNotification.payloadByteLimit + 4 + 4 + 1

    private var queue = ByteQueue()
    private var failure: LegacyDecodingError?

    public init() {}

    /// Bytes received but not yet part of a complete notification.
    public var bufferedByteCount: Int { queue.count }

    /// Adds bytes read from the connection.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        queue.append(contentsOf: bytes)
    }

    /// The next complete notification, or `nil` if more bytes are needed.
    ///
    /// - Throws: ``LegacyDecodingError`` for a malformed notification (and for every call after it).
    public mutating func next() throws(LegacyDecodingError) -> LegacyNotification? {
        if let failure { throw failure }
        do {
            return try decodeOne()
        } catch {
            failure = error
            throw error
        }
    }

    private mutating func decodeOne() throws(LegacyDecodingError) -> LegacyNotification? {
        guard queue.count >= 1 else { return nil }
        let command = queue.uint8(at: 0)
        switch LegacyNotification.Format(rawValue: command) {
        case .simple?: return try decodeSimpleOrEnhanced(.simple, headerLength: 1, identifier: nil)
        case .enhanced?:
            guard queue.count >= 9 else { return nil }
            return try decodeSimpleOrEnhanced(.enhanced, headerLength: 9, identifier: queue.uint32(at: 1))
        case .frame?: return try decodeFrame()
        case nil:
            throw LegacyDecodingError(
                status: .processingError, identifier: 0,
                problem: "unknown command \(command): expected 0 (simple), 1 (enhanced) or 2 (frame)")
        }
    }

    /// Commands 0 and 1: `[header] tokenLength(2) token payloadLength(2) payload`.
    private mutating func decodeSimpleOrEnhanced(
        _ format: LegacyNotification.Format, headerLength: Int, identifier: UInt32?
    ) throws(LegacyDecodingError) -> LegacyNotification? {
        let reportedID = identifier ?? 0
        guard queue.count >= headerLength + 2 else { return nil }
        let tokenLength = Int(queue.uint16(at: headerLength))
        try Self.checkToken(length: tokenLength, identifier: reportedID)
        let payloadLengthOffset = headerLength + 2 + tokenLength
        guard queue.count >= payloadLengthOffset + 2 else { return nil }
        let payloadLength = Int(queue.uint16(at: payloadLengthOffset))
        try Self.checkPayload(length: payloadLength, identifier: reportedID)
        let total = payloadLengthOffset + 2 + payloadLength
        guard queue.count >= total else { return nil }
        let notification = LegacyNotification(
            format: format,
            deviceToken: queue.bytes(at: headerLength + 2, count: tokenLength),
            payload: queue.bytes(at: payloadLengthOffset + 2, count: payloadLength),
            identifier: identifier,
            expiry: format == .enhanced ? queue.uint32(at: 5) : nil)
        queue.consume(total)
        return notification
    }

    /// Command 2: `frameLength(4)` then items `id(1) length(2) data`.
    private mutating func decodeFrame() throws(LegacyDecodingError) -> LegacyNotification? {
        guard queue.count >= 5 else { return nil }
        let frameLength = Int(queue.uint32(at: 1))
        if frameLength > Self.maximumFrameLength {
            throw LegacyDecodingError(
                status: .processingError, identifier: 0,
                problem: "frame length \(frameLength) exceeds the largest valid frame (\(Self.maximumFrameLength) bytes)")
        }
        guard queue.count >= 5 + frameLength else { return nil }

        var items: [UInt8: [UInt8]] = [:]
        var offset = 5
        let end = 5 + frameLength
        while offset < end {
            guard offset + 3 <= end else {
                throw LegacyDecodingError(
                    status: .processingError, identifier: 0,
                    problem: "item header at frame byte \(offset - 5) is cut off by the frame end")
            }
            let itemID = queue.uint8(at: offset)
            let length = Int(queue.uint16(at: offset + 1))
            guard offset + 3 + length <= end else {
                throw LegacyDecodingError(
                    status: .processingError, identifier: 0,
                    problem: "item \(itemID) declares \(length) bytes, more than the frame has left")
            }
            guard items[itemID] == nil else {
                throw LegacyDecodingError(
                    status: .processingError, identifier: 0, problem: "item \(itemID) appears twice in one frame")
            }
            // Unknown item IDs are skipped: the frame format was designed to be extended.
            if LegacyNotification.Item(rawValue: itemID) != nil {
                items[itemID] = queue.bytes(at: offset + 3, count: length)
            }
            offset += 3 + length
        }

        var identifier: UInt32?
        if let data = items[LegacyNotification.Item.identifier.rawValue] {
            guard data.count == 4 else {
                throw LegacyDecodingError(
                    status: .processingError, identifier: 0,
                    problem: "identifier item must be 4 bytes, got \(data.count)")
            }
            identifier = Self.uint32(data)
        }
        let reportedID = identifier ?? 0
        var expiry: UInt32?
        if let data = items[LegacyNotification.Item.expiry.rawValue] {
            guard data.count == 4 else {
                throw LegacyDecodingError(
                    status: .processingError, identifier: reportedID,
                    problem: "expiration item must be 4 bytes, got \(data.count)")
            }
            expiry = Self.uint32(data)
        }
        var priority: UInt8?
        if let data = items[LegacyNotification.Item.priority.rawValue] {
            guard data.count == 1, data[0] == 5 || data[0] == 10 else {
                throw LegacyDecodingError(
                    status: .processingError, identifier: reportedID,
                    problem: "priority item must be one byte, 10 or 5; got \(data)")
            }
            priority = data[0]
        }
        guard let token = items[LegacyNotification.Item.deviceToken.rawValue] else {
            throw LegacyDecodingError(
                status: .missingDeviceToken, identifier: reportedID, problem: "frame has no device token item (1)")
        }
        try Self.checkToken(length: token.count, identifier: reportedID)
        guard let payload = items[LegacyNotification.Item.payload.rawValue] else {
            throw LegacyDecodingError(
                status: .missingPayload, identifier: reportedID, problem: "frame has no payload item (2)")
        }
        try Self.checkPayload(length: payload.count, identifier: reportedID)

        queue.consume(end)
        return LegacyNotification(
            format: .frame, deviceToken: token, payload: payload, identifier: identifier, expiry: expiry,
            priority: priority)
    }

    private static func checkToken(length: Int, identifier: UInt32) throws(LegacyDecodingError) {
        if length == 0 {
            throw LegacyDecodingError(status: .missingDeviceToken, identifier: identifier, problem: "device token is empty")
        }
        if length > LegacyNotification.tokenByteLimit {
            throw LegacyDecodingError(
                status: .invalidTokenSize, identifier: identifier,
                problem: "device token is \(length) bytes, over the \(LegacyNotification.tokenByteLimit)-byte limit")
        }
    }

    private static func checkPayload(length: Int, identifier: UInt32) throws(LegacyDecodingError) {
        if length == 0 {
            throw LegacyDecodingError(status: .missingPayload, identifier: identifier, problem: "payload is empty")
        }
        if length > LegacyNotification.payloadByteLimit {
            throw LegacyDecodingError(
                status: .invalidPayloadSize, identifier: identifier,
                problem: "payload is \(length) bytes, over the \(LegacyNotification.payloadByteLimit)-byte limit")
        }
    }

    private static func uint32(_ bytes: [UInt8]) -> UInt32 {
        UInt32(bytes[0]) << 24 | UInt32(bytes[1]) << 16 | UInt32(bytes[2]) << 8 | UInt32(bytes[3])
    }
}

/// A malformed binary-protocol notification: what is wrong, and the error-response packet the
/// gateway answers with before closing the connection.
public struct LegacyDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The status to report.
    public var status: LegacyStatus
    /// The failing notification's identifier, or 0 when it is unknown (commands 0, frames
    /// without item 3, or failures before the identifier could be read).
    public var identifier: UInt32
    /// What is wrong.
    public var problem: String

    public init(status: LegacyStatus, identifier: UInt32, problem: String) {
        self.status = status
        self.identifier = identifier
        self.problem = problem
    }

    /// The packet to write back.
    public var errorResponse: LegacyErrorResponse {
        LegacyErrorResponse(status: status, identifier: identifier)
    }

    public var description: String {
        "malformed binary notification (status \(status), identifier \(identifier)): \(problem)"
    }
}
