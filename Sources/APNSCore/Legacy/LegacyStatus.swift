/// The status byte of the binary provider API's error-response packet. Open set.
public struct LegacyStatus: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
    public let rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// 0: no errors encountered.
    public static let noErrors = LegacyStatus(rawValue: 0)
    /// 1: processing error (also what this codec answers for unparsable frames and unknown commands).
    public static let processingError = LegacyStatus(rawValue: 1)
    /// 2: missing device token.
    public static let missingDeviceToken = LegacyStatus(rawValue: 2)
    /// 3: missing topic.
    public static let missingTopic = LegacyStatus(rawValue: 3)
    /// 4: missing payload.
    public static let missingPayload = LegacyStatus(rawValue: 4)
    /// 5: invalid token size.
    public static let invalidTokenSize = LegacyStatus(rawValue: 5)
    /// 6: invalid topic size.
    public static let invalidTopicSize = LegacyStatus(rawValue: 6)
    /// 7: invalid payload size.
    public static let invalidPayloadSize = LegacyStatus(rawValue: 7)
    /// 8: invalid token.
    public static let invalidToken = LegacyStatus(rawValue: 8)
    /// 10: shutdown; the identifier is the last notification that *succeeded*.
    public static let shutdown = LegacyStatus(rawValue: 10)
    /// 128: protocol error (only in the later guide).
    public static let protocolError = LegacyStatus(rawValue: 128)
    /// 255: none (unknown).
    public static let unknown = LegacyStatus(rawValue: 255)

    public var description: String {
        switch rawValue {
        case 0: return "0 (no errors)"
        case 1: return "1 (processing error)"
        case 2: return "2 (missing device token)"
        case 3: return "3 (missing topic)"
        case 4: return "4 (missing payload)"
        case 5: return "5 (invalid token size)"
        case 6: return "6 (invalid topic size)"
        case 7: return "7 (invalid payload size)"
        case 8: return "8 (invalid token)"
        case 10: return "10 (shutdown)"
        case 128: return "128 (protocol error)"
        case 255: return "255 (unknown)"
        default: return "\(rawValue) (undocumented)"
        }
    }
}

/// The 6-byte error-response packet the gateway writes before closing the connection:
/// command 8, status, and the identifier of the failing notification (for ``LegacyStatus/shutdown``,
/// the last one that succeeded; 0 when the gateway does not know which).
public struct LegacyErrorResponse: Sendable, Hashable {
    /// The command byte of an error response.
    public static let command: UInt8 = 8
    /// Size of the packet.
    public static let byteCount = 6

    public var status: LegacyStatus
    public var identifier: UInt32

    public init(status: LegacyStatus, identifier: UInt32) {
        self.status = status
        self.identifier = identifier
    }

    /// Reads a packet.
    ///
    /// - Throws: ``LegacyCodecError`` if there are not exactly 6 bytes or the command is not 8.
    public init(bytes: some Collection<UInt8>) throws(LegacyCodecError) {
        let bytes = Array(bytes)
        guard bytes.count == Self.byteCount else {
            throw LegacyCodecError("an error response is \(Self.byteCount) bytes, got \(bytes.count)")
        }
        guard bytes[0] == Self.command else {
            throw LegacyCodecError("an error response starts with command 8, got \(bytes[0])")
        }
        status = LegacyStatus(rawValue: bytes[1])
        identifier = UInt32(bytes[2]) << 24 | UInt32(bytes[3]) << 16 | UInt32(bytes[4]) << 8 | UInt32(bytes[5])
    }

    /// The packet's bytes.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = [Self.command, status.rawValue]
        bytes.appendBigEndian(identifier)
        return bytes
    }
}

/// Something that cannot be encoded in, or read as, the binary provider protocol.
public struct LegacyCodecError: Error, Sendable, Hashable, CustomStringConvertible {
    public var problem: String

    public init(_ problem: String) {
        self.problem = problem
    }

    public var description: String { problem }
}
