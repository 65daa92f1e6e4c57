import Foundation

/// One HTTP/2 header field.
public struct APNSHeader: Sendable, Hashable, CustomStringConvertible {
    /// Lowercase name (pseudo-headers start with `:`).
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    public var description: String { "\(name): \(value)" }
}

/// A validated notification, with push type and priority resolved and the body encoded:
/// exactly what goes on the wire.
public struct APNSPreparedRequest: Sendable {
    public let deviceToken: DeviceToken
    public let topic: String
    public let pushType: APNSPushType
    public let priority: APNSPriority
    public let expiration: APNSExpiration?
    public let collapseID: String?
    public let apnsID: UUID?
    /// The request body.
    public let body: [UInt8]
    /// `/3/device/<token>`, built once when the request is prepared rather than each time it is sent.
    public let path: String

    @usableFromInline
    init(deviceToken: DeviceToken, topic: String, pushType: APNSPushType, priority: APNSPriority, expiration: APNSExpiration?,
         collapseID: String?, apnsID: UUID?, body: [UInt8]) {
        self.deviceToken = deviceToken
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.apnsID = apnsID
        self.body = body
        path = "/3/device/" + deviceToken.hex
    }

    /// The same request for another device (and apns-id). What `APNSNotification.prepare()` validates,
    /// topic, push type, priority and payload, does not depend on the device, so a batch sending one
    /// payload to many devices validates it once. Inlinable, so that a request read in place is not copied first.
    @inlinable
    public func retargeted(to deviceToken: DeviceToken, apnsID: UUID?) -> APNSPreparedRequest {
        APNSPreparedRequest(deviceToken: deviceToken, topic: topic, pushType: pushType, priority: priority, expiration: expiration,
                            collapseID: collapseID, apnsID: apnsID, body: body)
    }

    /// Whether `other` carries the same headers apart from its token and apns-id: requests that do can
    /// share one encoded header block. Inlinable, as is `apnsIDHeaderValue`: a caller that reads a request in
    /// place (the client, in its array) then touches only these fields instead of copying the whole request.
    @inlinable
    public func sharesHeaders(with other: APNSPreparedRequest) -> Bool {
        topic == other.topic && pushType == other.pushType && priority == other.priority
            && expiration == other.expiration && collapseID == other.collapseID
    }

    /// `apns-id` as APNs expects it: canonical lowercase 8-4-4-4-12.
    @inlinable
    public var apnsIDHeaderValue: String? {
        apnsID?.lowercasedString
    }

    /// The request's header list, pseudo-headers first as HTTP/2 requires:
    /// `:method POST`, `:scheme https`, `:authority` (if given), `:path /3/device/<token>`, then
    /// `authorization` (if given; the client adds it for token authentication), `apns-topic`,
    /// `apns-push-type`, `apns-priority`, and when set `apns-expiration`, `apns-collapse-id`,
    /// `apns-id`.
    public func headers(authority: String? = nil, authorization: String? = nil) -> [APNSHeader] {
        var headers: [APNSHeader] = []
        headers.reserveCapacity(11)
        headers.append(APNSHeader(":method", "POST"))
        headers.append(APNSHeader(":scheme", "https"))
        if let authority { headers.append(APNSHeader(":authority", authority)) }
        headers.append(APNSHeader(":path", path))
        if let authorization { headers.append(APNSHeader("authorization", authorization)) }
        headers.append(APNSHeader("apns-topic", topic))
        headers.append(APNSHeader("apns-push-type", pushType.rawValue))
        headers.append(APNSHeader("apns-priority", String(priority.rawValue)))
        if let expiration { headers.append(APNSHeader("apns-expiration", expiration.headerValue)) }
        if let collapseID { headers.append(APNSHeader("apns-collapse-id", collapseID)) }
        if let apnsIDHeaderValue { headers.append(APNSHeader("apns-id", apnsIDHeaderValue)) }
        return headers
    }
}
