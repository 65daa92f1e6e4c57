/// A payload already encoded to bytes, shared by every notification of one variant so the
/// JSON is built once, not once per device. `[UInt8]` is copy-on-write: sharing costs nothing.
public struct APNSEncodedPayload: Sendable, Hashable {
    /// The request body.
    public let bytes: [UInt8]
    /// What is known about the content; `nil` for bytes taken on trust with ``init(uncheckedBytes:)``.
    public let traits: APNSPayloadTraits?

    init(bytes: [UInt8], traits: APNSPayloadTraits?) {
        self.bytes = bytes
        self.traits = traits
    }

    /// Bytes sent as they are, without looking inside. Push type then defaults to `alert`
    /// unless set, and the background-push checks cannot run; size limits still apply.
    public init(uncheckedBytes bytes: [UInt8]) {
        self.init(bytes: bytes, traits: nil)
    }

    /// Bytes that are parsed once to learn their traits (and to check they are a payload);
    /// the bytes themselves are sent unchanged.
    ///
    /// - Throws: ``APNSDecodingError`` if they are not a JSON object with a valid `aps`.
    public init(validatingBytes bytes: [UInt8]) throws(APNSDecodingError) {
        let payload = try APNSPayload(jsonBytes: bytes)
        self.init(bytes: bytes, traits: payload.traits)
    }

    /// Size in bytes.
    public var count: Int { bytes.count }
}

/// Facts about a payload's content that decide its push type and how it is validated.
public struct APNSPayloadTraits: Sendable, Hashable {
    /// Whether there is an `aps` dictionary.
    public var hasAps: Bool
    /// Whether `aps.content-available` is 1.
    public var contentAvailable: Bool
    /// `alert`, `badge`, `sound`: those present in `aps`.
    public var userVisibleKeys: [String]
    /// Whether a custom top-level key is named `aps` (it would clash with the real one).
    public var hasCustomApsKey: Bool
    /// `aps.event`, which makes it a Live Activity payload.
    public var liveActivityEvent: APNSLiveActivityEvent?
    /// Whether `aps.timestamp` is set (every Live Activity push needs one).
    public var hasTimestamp: Bool
    /// Whether `aps.attributes-type` is set (a Live Activity `start` needs it).
    public var hasAttributesType: Bool
    /// Whether `aps.attributes` is set (a Live Activity `start` needs it).
    public var hasAttributes: Bool

    public init(
        hasAps: Bool, contentAvailable: Bool, userVisibleKeys: [String], hasCustomApsKey: Bool,
        liveActivityEvent: APNSLiveActivityEvent? = nil, hasTimestamp: Bool = false, hasAttributesType: Bool = false,
        hasAttributes: Bool = false
    ) {
        self.hasAps = hasAps
        self.contentAvailable = contentAvailable
        self.userVisibleKeys = userVisibleKeys
        self.hasCustomApsKey = hasCustomApsKey
        self.liveActivityEvent = liveActivityEvent
        self.hasTimestamp = hasTimestamp
        self.hasAttributesType = hasAttributesType
        self.hasAttributes = hasAttributes
    }

    /// A silent update: `content-available` with no alert, badge or sound.
    public var isBackgroundOnly: Bool {
        contentAvailable && userVisibleKeys.isEmpty
    }
}
