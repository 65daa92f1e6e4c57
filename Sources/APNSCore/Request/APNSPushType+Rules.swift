/// What each push type requires of priority and payload (docs/apns-reference.md §1.3 and §4). The APNs
/// client, the simulator and the provider service all check a push through these, so a push Herald
/// accepts is one APNs accepts.
extension APNSPushType {
    /// The push type a payload implies when none is given: `background` for a silent update, `liveactivity`
    /// for a payload with a Live Activity `event` (sent as `alert`, APNs would not update the activity),
    /// else `alert`.
    public static func inferred(from traits: APNSPayloadTraits?) -> APNSPushType {
        guard let traits else { return .alert }
        if traits.isBackgroundOnly { return .background }
        if traits.liveActivityEvent != nil { return .liveactivity }
        return .alert
    }

    /// The priority used when none is given: 5 for background pushes (APNs rejects 10 there), else 10.
    public var defaultPriority: APNSPriority {
        self == .background ? .consideringDevicePower : .immediately
    }

    /// The priorities APNs accepts for this push type, or `nil` when any documented one will do:
    /// background must be 5, a Live Activity 5 or 10.
    public var allowedPriorities: [APNSPriority]? {
        switch self {
        case .background: [.consideringDevicePower]
        case .liveactivity: [.immediately, .consideringDevicePower]
        default: nil
        }
    }

    /// Checks `priority` for this push type.
    ///
    /// - Throws: ``APNSValidationError/invalidPriority(_:)``, ``APNSValidationError/backgroundPriorityTooHigh`` or
    ///   ``APNSValidationError/priorityNotAllowed(priority:pushType:allowed:)``.
    public func check(priority: APNSPriority) throws(APNSValidationError) {
        if !APNSPriority.allKnown.contains(priority) {
            throw .invalidPriority(priority.rawValue)
        }
        if self == .background && priority == .immediately {
            throw .backgroundPriorityTooHigh
        }
        if let allowed = allowedPriorities, !allowed.contains(priority) {
            throw .priorityNotAllowed(priority: priority.rawValue, pushType: self, allowed: allowed.map(\.rawValue))
        }
    }

    /// Checks what this push type requires of the payload: a background push carries `content-available`
    /// and nothing visible; a Live Activity push carries a `timestamp` and a known `event`, and a `start`
    /// also `alert`, `attributes-type` and `attributes` (A-LA).
    ///
    /// - Throws: the first ``APNSValidationError`` found.
    public func check(payload traits: APNSPayloadTraits) throws(APNSValidationError) {
        if self == .background {
            if !traits.contentAvailable { throw .backgroundWithoutContentAvailable }
            if !traits.userVisibleKeys.isEmpty {
                throw .backgroundWithUserVisibleContent(keys: traits.userVisibleKeys)
            }
        }
        if let event = traits.liveActivityEvent, !event.isKnown {
            throw .unknownLiveActivityEvent(event.rawValue)
        }
        if self == .liveactivity {
            guard let event = traits.liveActivityEvent else { throw .liveActivityWithoutEvent }
            if !traits.hasTimestamp { throw .liveActivityWithoutTimestamp }
            if event == .start {
                var missing: [String] = []
                if !traits.userVisibleKeys.contains("alert") { missing.append("alert") }
                if !traits.hasAttributesType { missing.append("attributes-type") }
                if !traits.hasAttributes { missing.append("attributes") }
                if !missing.isEmpty { throw .liveActivityStartIncomplete(missing: missing) }
            }
        }
    }
}

extension APNSLiveActivityEvent {
    /// The events Apple documents.
    public static let allKnown: [APNSLiveActivityEvent] = [.start, .update, .end]

    /// Whether this is one of ``allKnown``.
    public var isKnown: Bool { Self.allKnown.contains(self) }
}
