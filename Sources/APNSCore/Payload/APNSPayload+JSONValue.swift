extension APNSPayload {
    /// The payload as a generic JSON value (for display, or to embed in another document).
    public var jsonValue: JSONValue {
        // The writer only ever produces valid JSON, so parsing it back cannot fail.
        (try? JSONValue(parsing: jsonBytes())) ?? .null
    }
}
