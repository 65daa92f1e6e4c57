/// A notification payload: the `aps` dictionary plus custom top-level keys.
///
/// Encoding is compact JSON with a fixed order: `aps` first (its keys in Apple's table order,
/// then ``APNSAps/extra``), then ``custom`` in insertion order. The same model always gives the
/// same bytes, so an encoded payload can be cached per variant and compared in tests.
public struct APNSPayload: Sendable, Equatable {
    /// The `aps` dictionary; `nil` leaves it out (MDM payloads are `{"mdm":"<PushMagic>"}`).
    public var aps: APNSAps?
    /// Keys beside `aps`, delivered to the app in `userInfo`. A key named `aps` here is never
    /// written; ``APNSNotification/prepare()`` reports it.
    public var custom: JSONObject

    public init(aps: APNSAps? = APNSAps(), custom: JSONObject = [:]) {
        self.aps = aps
        self.custom = custom
    }

    /// An alert payload: `{"aps":{"alert":{"title":…,"body":…}}}` or, without a title,
    /// `{"aps":{"alert":"body"}}`.
    public static func alert(
        title: String? = nil, body: String, badge: Int? = nil, sound: APNSSound? = nil, custom: JSONObject = [:]
    ) -> APNSPayload {
        let alert: APNSAlert = title.map { .content(APNSAlertContent(title: $0, body: body)) } ?? .text(body)
        return APNSPayload(aps: APNSAps(alert: alert, badge: badge, sound: sound), custom: custom)
    }

    /// A silent background payload: `{"aps":{"content-available":1}}` plus custom keys.
    public static func background(custom: JSONObject = [:]) -> APNSPayload {
        APNSPayload(aps: .background, custom: custom)
    }
}
