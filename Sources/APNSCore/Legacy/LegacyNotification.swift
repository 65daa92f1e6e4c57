/// A notification in the binary provider protocol (discontinued by Apple in March 2021; the
/// simulator still speaks it on its legacy port).
///
/// Integers are big-endian. Command 0 carries token and payload; command 1 adds an identifier
/// (echoed in error responses) and an expiry; command 2 is a frame of items, with an optional
/// priority. Every format is held to ``payloadByteLimit`` (2048) and ``tokenByteLimit`` (100).
public struct LegacyNotification: Sendable, Hashable {
    /// Wire format, named after its command byte.
    public enum Format: UInt8, Sendable, Hashable {
        /// Command 0: token and payload.
        case simple = 0
        /// Command 1: identifier, expiry, token, payload.
        case enhanced = 1
        /// Command 2: a frame of items (token, payload, identifier, expiry, priority).
        case frame = 2
    }

    /// Item IDs of a command-2 frame.
    public enum Item: UInt8, Sendable {
        case deviceToken = 1
        case payload = 2
        case identifier = 3
        case expiry = 4
        case priority = 5
    }

    /// Largest payload accepted in every binary format (Apple's iOS 8 limit; seed tutorials
    /// sent 450-byte command-0 payloads successfully).
    public static let payloadByteLimit = 2048
    /// Largest device token a binary frame may carry.
    public static let tokenByteLimit = 100

    public var format: Format
    /// The device token's bytes.
    public var deviceToken: [UInt8]
    /// The JSON payload, not NUL-terminated.
    public var payload: [UInt8]
    /// Echoed in error responses. `nil` for command 0 and for frames without item 3.
    public var identifier: UInt32?
    /// UNIX seconds after which APNs discards it; 0 = do not store. `nil` for command 0 and
    /// for frames without item 4.
    public var expiry: UInt32?
    /// 10 (immediate) or 5 (power-conserving). `nil` for commands 0 and 1 and frames without
    /// item 5, which all mean 10.
    public var priority: UInt8?

    public init(
        format: Format, deviceToken: [UInt8], payload: [UInt8], identifier: UInt32? = nil, expiry: UInt32? = nil,
        priority: UInt8? = nil
    ) {
        self.format = format
        self.deviceToken = deviceToken
        self.payload = payload
        self.identifier = identifier
        self.expiry = expiry
        self.priority = priority
    }

    /// Command 0.
    public static func simple(deviceToken: [UInt8], payload: [UInt8]) -> LegacyNotification {
        LegacyNotification(format: .simple, deviceToken: deviceToken, payload: payload)
    }

    /// Command 1.
    public static func enhanced(
        identifier: UInt32, expiry: UInt32, deviceToken: [UInt8], payload: [UInt8]
    ) -> LegacyNotification {
        LegacyNotification(
            format: .enhanced, deviceToken: deviceToken, payload: payload, identifier: identifier, expiry: expiry)
    }

    /// Command 2; items 3, 4 and 5 are written only when given.
    public static func frame(
        deviceToken: [UInt8], payload: [UInt8], identifier: UInt32? = nil, expiry: UInt32? = nil,
        priority: UInt8? = nil
    ) -> LegacyNotification {
        LegacyNotification(
            format: .frame, deviceToken: deviceToken, payload: payload, identifier: identifier, expiry: expiry,
            priority: priority)
    }

    /// The priority that applies: ``priority``, or 10 when absent.
    public var effectivePriority: UInt8 { priority ?? 10 }

    /// The token as a ``DeviceToken``, if its length is acceptable.
    public var token: DeviceToken? { try? DeviceToken(bytes: deviceToken) }

    /// The wire bytes.
    ///
    /// - Throws: ``LegacyCodecError`` when the token is empty or over 100 bytes, the payload is
    ///   empty or over 2048 bytes, or the priority is not 5 or 10.
    public func encoded() throws(LegacyCodecError) -> [UInt8] {
        if deviceToken.isEmpty { throw LegacyCodecError("the device token is empty") }
        if deviceToken.count > Self.tokenByteLimit {
            throw LegacyCodecError(
                "the device token is \(deviceToken.count) bytes, over the \(Self.tokenByteLimit)-byte limit")
        }
        if payload.isEmpty { throw LegacyCodecError("the payload is empty") }
        if payload.count > Self.payloadByteLimit {
            throw LegacyCodecError(
                "the payload is \(payload.count) bytes, over the \(Self.payloadByteLimit)-byte limit of the "
                    + "binary provider API")
        }
        if let priority, priority != 5 && priority != 10 {
            throw LegacyCodecError("priority \(priority) is not valid: use 10 or 5")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(deviceToken.count + payload.count + 32)
        bytes.append(format.rawValue)
        switch format {
        case .simple, .enhanced:
            if format == .enhanced {
                bytes.appendBigEndian(identifier ?? 0)
                bytes.appendBigEndian(expiry ?? 0)
            }
            bytes.appendBigEndian(UInt16(deviceToken.count))
            bytes.append(contentsOf: deviceToken)
            bytes.appendBigEndian(UInt16(payload.count))
            bytes.append(contentsOf: payload)
        case .frame:
            var items: [UInt8] = []
            items.reserveCapacity(deviceToken.count + payload.count + 24)
            appendItem(.deviceToken, deviceToken, to: &items)
            appendItem(.payload, payload, to: &items)
            if let identifier { appendItem(.identifier, bigEndian(identifier), to: &items) }
            if let expiry { appendItem(.expiry, bigEndian(expiry), to: &items) }
            if let priority { appendItem(.priority, [priority], to: &items) }
            bytes.appendBigEndian(UInt32(items.count))
            bytes.append(contentsOf: items)
        }
        return bytes
    }

    private func appendItem(_ item: Item, _ data: [UInt8], to items: inout [UInt8]) {
        items.append(item.rawValue)
        items.appendBigEndian(UInt16(data.count))
        items.append(contentsOf: data)
    }

    private func bigEndian(_ value: UInt32) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendBigEndian(value)
        return bytes
    }
}

extension APNSEnvironment {
    /// Binary gateway, production: `gateway.push.apple.com:2195`.
    public static let legacyGatewayProduction = APNSEnvironment(host: "gateway.push.apple.com", port: 2195)
    /// Binary gateway, sandbox: `gateway.sandbox.push.apple.com:2195`.
    public static let legacyGatewaySandbox = APNSEnvironment(host: "gateway.sandbox.push.apple.com", port: 2195)
    /// Feedback service, production: `feedback.push.apple.com:2196`.
    public static let legacyFeedbackProduction = APNSEnvironment(host: "feedback.push.apple.com", port: 2196)
    /// Feedback service, sandbox: `feedback.sandbox.push.apple.com:2196`.
    public static let legacyFeedbackSandbox = APNSEnvironment(host: "feedback.sandbox.push.apple.com", port: 2196)
}
