/// Maps a push's custom data to a place in the app (a screen, a URL, a deep link of your own type).
///
/// Rules are tried in the order they were added; the first that yields a destination wins.
///
/// ```swift
/// enum Screen { case course(Int), web(URL), comments }
/// var router = PushRouter<Screen>()
/// router.when("data", "systype", equals: 1) { push in push.value(at: "data", "id")?.intValue.map(Screen.course) }
/// router.when("data", "systype", equals: 5) { push in push.value(at: "data", "url")?.stringValue.flatMap(URL.init(string:)).map(Screen.web) }
/// router.when("action", "type", equals: 4) { _ in .comments }
/// let screen = router.destination(for: push)
/// ```
public struct PushRouter<Destination>: Sendable {
    /// A rule: a destination for the push, or nil to let the next rule try.
    public typealias Rule = @Sendable (PushNotification) -> Destination?

    private var rules: [Rule] = []

    public init() {}

    /// Adds a rule that decides on its own.
    public mutating func add(_ rule: @escaping Rule) {
        rules.append(rule)
    }

    /// Adds a rule that applies when the custom value at `path` (see ``PushNotification/value(at:)``)
    /// loosely equals `value`: `5`, `5.0` and `"5"` all match 5.
    public mutating func when(_ path: String..., equals value: JSONValue, then destination: @escaping Rule) {
        rules.append { notification in
            guard let found = notification.value(atPath: path), found.looselyEquals(value) else { return nil }
            return destination(notification)
        }
    }

    /// Adds a rule that applies when there is a custom value at `path`, and builds the destination from it.
    public mutating func whenPresent(_ path: String..., then destination: @escaping @Sendable (JSONValue, PushNotification) -> Destination?) {
        rules.append { notification in
            notification.value(atPath: path).flatMap { destination($0, notification) }
        }
    }

    /// The first destination a rule yields, or nil.
    public func destination(for notification: PushNotification) -> Destination? {
        for rule in rules {
            if let destination = rule(notification) { return destination }
        }
        return nil
    }
}
