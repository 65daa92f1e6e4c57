/// Tags to add to and remove from one installation; valid once built (every tag well-formed, something to do).
struct TagChange: Sendable, Equatable {
    let add: [String]
    let remove: [String]

    init(add: [String] = [], remove: [String] = []) throws {
        self.add = try Rules.tags(add, field: "add") ?? []
        self.remove = try Rules.tags(remove, field: "remove") ?? []
        guard !add.isEmpty || !remove.isEmpty else { throw ServiceError.missing("add", "Send add and/or remove.") }
    }

    /// `{"add": [...], "remove": [...]}`.
    static func parse(_ body: BodyReader) throws -> TagChange {
        try body.rejectUnknown(["add", "remove"])
        return try TagChange(add: try body.stringArray("add", maxCount: 1000, maxLength: 64) ?? [],
                             remove: try body.stringArray("remove", maxCount: 1000, maxLength: 64) ?? [])
    }
}
