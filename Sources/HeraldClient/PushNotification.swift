import Foundation

/// A received push, typed: what `aps` says, the app's custom data, and Herald's push id.
///
/// Built from a notification's `userInfo` or from the payload's JSON bytes by ``init(userInfo:)`` and
/// ``init(jsonData:)``, which accept what real payloads carry: an alert given as text or as an object,
/// numbers and flags written as strings ("5", "1"), flags written as numbers, LeanCloud's custom keys at
/// the top level, JPush's `_j_msgid` and friends, and custom data nested inside `aps`.
public struct PushNotification: Sendable, Equatable {
    /// The alert, when the push shows one.
    public var alert: PushAlert?
    /// The badge number to show on the app icon (0 clears it).
    public var badge: Int?
    /// The sound to play.
    public var sound: PushSound?
    /// The category identifier, selecting the actions shown with the notification.
    public var category: String?
    /// Groups notifications in Notification Center.
    public var threadId: String?
    /// `content-available`: the app is woken in the background (a silent push when nothing else is set).
    public var isContentAvailable: Bool
    /// `mutable-content`: a notification service extension may modify the notification first.
    public var isMutableContent: Bool
    /// The window to bring forward when the notification is opened.
    public var targetContentId: String?
    /// passive, active, time-sensitive or critical.
    public var interruptionLevel: String?
    /// How to rank the notification in a summary, 0 to 1.
    public var relevanceScore: Double?
    /// The id Herald gave the push (`herald.pushId`); what open tracking reports.
    public var heraldPushId: String?
    /// The payload's top-level keys other than `aps` and `herald`: the app's custom data.
    public var customData: [String: JSONValue]
    /// Keys inside `aps` that Apple does not define (some senders nest custom data there, e.g. `aps.data`).
    public var apsExtras: [String: JSONValue]
    /// The whole payload.
    public var payload: JSONValue

    /// True for a push that only wakes the app: content-available with nothing to show or play.
    public var isSilent: Bool {
        isContentAvailable && alert == nil && sound == nil && badge == nil
    }

    /// The custom value at a path of keys, looked up in ``customData`` first and then in ``apsExtras``,
    /// e.g. `value(at: "data", "url")`.
    public func value(at path: String...) -> JSONValue? {
        value(atPath: path)
    }

    /// The custom value at a path of keys (see ``value(at:)``).
    public func value(atPath path: [String]) -> JSONValue? {
        guard let first = path.first else { return nil }
        let rest = Array(path.dropFirst())
        if let found = customData[first].flatMap({ $0[rest] }) { return found }
        return apsExtras[first].flatMap { $0[rest] }
    }
}
