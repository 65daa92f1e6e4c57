import Foundation

extension PushNotification {
    /// The keys of `aps` that Apple defines; everything else in `aps` is kept in ``apsExtras``.
    static let apsKeys: Set<String> = [
        "alert", "badge", "sound", "category", "thread-id", "content-available", "mutable-content",
        "target-content-id", "interruption-level", "relevance-score", "filter-criteria", "stale-date",
        "content-state", "timestamp", "event", "dismissal-date", "attributes-type", "attributes",
    ]

    /// Parses a notification's `userInfo` (from `UNNotificationContent`, launch options, or
    /// `didReceiveRemoteNotification`). Never fails: unknown or malformed parts are skipped.
    public init(userInfo: [AnyHashable: Any]) {
        self.init(payload: JSONValue(foundationValue: userInfo) ?? .object([:]))
    }

    /// Parses the payload's JSON bytes.
    /// - Throws: ``HeraldClientError/invalidArgument(name:reason:)`` when the bytes are not a JSON object.
    public init(jsonData: Data) throws {
        guard let object = try? JSONSerialization.jsonObject(with: jsonData, options: [.fragmentsAllowed]),
              let payload = JSONValue(foundationValue: object), payload.objectValue != nil else {
            throw HeraldClientError.invalidArgument(name: "payload", reason: "not a JSON object")
        }
        self.init(payload: payload)
    }

    /// Parses a payload already held as a JSON value.
    public init(payload: JSONValue) {
        var top = payload.objectValue ?? [:]
        let aps: [String: JSONValue]
        if let nested = top.removeValue(forKey: "aps")?.objectValue {
            aps = nested
        } else {
            // LeanCloud's `data` (and hand-written test payloads) put alert, badge and sound at the top level.
            var lifted: [String: JSONValue] = [:]
            for key in Self.apsKeys where top[key] != nil {
                lifted[key] = top.removeValue(forKey: key)
            }
            aps = lifted
        }
        let herald = top.removeValue(forKey: "herald")

        self.payload = payload
        self.alert = Self.alert(from: aps["alert"])
        self.badge = aps["badge"]?.intValue
        self.sound = Self.sound(from: aps["sound"])
        self.category = aps["category"]?.stringValue
        self.threadId = aps["thread-id"]?.stringValue
        self.isContentAvailable = aps["content-available"]?.boolValue ?? false
        self.isMutableContent = aps["mutable-content"]?.boolValue ?? false
        self.targetContentId = aps["target-content-id"]?.stringValue
        self.interruptionLevel = aps["interruption-level"]?.stringValue
        self.relevanceScore = aps["relevance-score"]?.doubleValue
        self.heraldPushId = herald?["pushId"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        self.customData = top
        self.apsExtras = aps.filter { !Self.apsKeys.contains($0.key) }
    }

    private static func alert(from value: JSONValue?) -> PushAlert? {
        guard let value else { return nil }
        if let object = value.objectValue {
            let alert = PushAlert(
                title: object["title"]?.stringValue,
                subtitle: object["subtitle"]?.stringValue,
                body: object["body"]?.stringValue,
                titleLocKey: object["title-loc-key"]?.stringValue,
                titleLocArgs: strings(object["title-loc-args"]),
                subtitleLocKey: object["subtitle-loc-key"]?.stringValue,
                subtitleLocArgs: strings(object["subtitle-loc-args"]),
                locKey: object["loc-key"]?.stringValue,
                locArgs: strings(object["loc-args"]),
                actionLocKey: object["action-loc-key"]?.stringValue,
                launchImage: object["launch-image"]?.stringValue)
            return alert == PushAlert() ? nil : alert
        }
        guard case .string(let text) = value, !text.isEmpty else { return nil }
        return PushAlert(body: text)
    }

    /// Format arguments as strings; a single value is taken as a one-element list.
    private static func strings(_ value: JSONValue?) -> [String]? {
        guard let value else { return nil }
        if let elements = value.arrayValue { return elements.compactMap(\.stringValue) }
        return value.stringValue.map { [$0] }
    }

    private static func sound(from value: JSONValue?) -> PushSound? {
        guard let value else { return nil }
        if let object = value.objectValue {
            guard let name = object["name"]?.stringValue else { return nil }
            return PushSound(name: name, isCritical: object["critical"]?.boolValue ?? false,
                             volume: object["volume"]?.doubleValue)
        }
        guard let name = value.stringValue, !name.isEmpty else { return nil }
        return PushSound(name: name)
    }
}
