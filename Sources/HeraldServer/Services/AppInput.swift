/// A new app's settings, valid once built.
struct AppInput: Sendable, Equatable {
    var name: String
    var topic: String?
    var defaultTimeZone: String
    var rateLimit: Int?

    init(name: String, topic: String? = nil, defaultTimeZone: String = "UTC", rateLimit: Int? = nil) throws {
        guard !name.isEmpty else { throw ServiceError.missing("name") }
        self.name = name
        self.topic = topic
        self.defaultTimeZone = try Rules.timeZone(defaultTimeZone, field: "defaultTimeZone") ?? defaultTimeZone
        self.rateLimit = try Rules.rateLimit(rateLimit, field: "rateLimit")
    }

    static let fields: Set<String> = ["name", "topic", "defaultTimeZone", "rateLimit"]

    static func parse(_ body: BodyReader) throws -> AppInput {
        try body.rejectUnknown(fields)
        return try AppInput(name: try body.requiredString("name", maxLength: 128), topic: try body.string("topic", maxLength: 255),
                            defaultTimeZone: try body.string("defaultTimeZone", maxLength: 64) ?? "UTC",
                            rateLimit: try body.int("rateLimit", range: Rules.rateLimits))
    }
}

/// Changes to an app: nil leaves a field as it is; `.some(nil)` clears an optional one.
struct AppChanges: Sendable, Equatable {
    var name: String?
    var topic: String??
    var defaultTimeZone: String?
    var rateLimit: Int??

    init(name: String? = nil, topic: String?? = nil, defaultTimeZone: String? = nil, rateLimit: Int?? = nil) throws {
        if name?.isEmpty == true { throw ServiceError.invalid("name", "name must not be empty.") }
        self.name = name
        self.topic = topic
        self.defaultTimeZone = try Rules.timeZone(defaultTimeZone, field: "defaultTimeZone")
        self.rateLimit = try rateLimit.map { try Rules.rateLimit($0, field: "rateLimit") }
    }

    static func parse(_ body: BodyReader) throws -> AppChanges {
        try body.rejectUnknown(AppInput.fields)
        return try AppChanges(name: try body.string("name", maxLength: 128), topic: try body.nullableString("topic", maxLength: 255),
                              defaultTimeZone: try body.string("defaultTimeZone", maxLength: 64),
                              rateLimit: body.has("rateLimit") ? .some(try body.int("rateLimit", range: Rules.rateLimits)) : nil)
    }
}
