import HeraldStore

/// A webhook as a request describes it (`POST`), or the fields a `PATCH` changes.
struct WebhookInput: Sendable, Equatable {
    var url: String?
    var events: [String]?
    var description: String??
    var enabled: Bool?

    static let fields: Set<String> = ["url", "events", "description", "enabled"]
    /// Read-only fields a client may send back from a GET.
    static let readOnly: Set<String> = ["id", "appId", "createdAt", "updatedAt", "disabled", "failureRun"]

    /// `creating` requires `url`; a change may name any subset.
    static func parse(_ body: BodyReader, creating: Bool) throws -> WebhookInput {
        try body.rejectUnknown(fields, ignoring: readOnly)
        var input = WebhookInput()
        input.url = creating ? try body.requiredString("url", maxLength: WebhookURL.maxLength) : try body.string("url", maxLength: WebhookURL.maxLength)
        if let events = try body.stringArray("events", maxCount: WebhookEventType.allCases.count, maxLength: 64) {
            let known = Set(WebhookEventType.allCases.map(\.rawValue))
            for (i, e) in events.enumerated() where !known.contains(e) {
                throw ServiceError.invalid("events[\(i)]", "'\(e)' is not an event type; known: \(WebhookEventType.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            guard !events.isEmpty else { throw ServiceError.invalid("events", "events must name at least one event type (leave it out for the default set).") }
            // Stored in the canonical order, once each.
            input.events = WebhookEventType.allCases.map(\.rawValue).filter(events.contains)
        }
        input.description = try body.nullableString("description", maxLength: 500)
        input.enabled = try body.bool("enabled")
        return input
    }
}
