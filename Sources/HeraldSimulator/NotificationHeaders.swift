/// The request headers a simulated notification keeps (`apns-*`, or `legacy-*` for the binary API), in
/// the order received. A list rather than a dictionary: it is built for every validated request and read
/// only by inspection, so appending beats hashing. Encoded as a JSON object, as a dictionary would be.
public struct NotificationHeaders: Sendable, Equatable, Codable, ExpressibleByDictionaryLiteral {
    public private(set) var fields: [Field]

    public struct Field: Sendable, Equatable {
        public var name: String
        public var value: String
    }

    public init() { fields = [] }

    init(capacity: Int) {
        fields = []
        fields.reserveCapacity(capacity)
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    /// The first value of `name` (names are stored lowercase).
    public subscript(name: String) -> String? {
        get { fields.first { $0.name == name }?.value }
        set {
            fields.removeAll { $0.name == name }
            if let newValue { fields.append(Field(name: name, value: newValue)) }
        }
    }

    mutating func append(_ name: String, _ value: String) { fields.append(Field(name: name, value: value)) }

    public var dictionary: [String: String] { Dictionary(fields.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first }) }

    public init(from decoder: any Decoder) throws {
        let object = try [String: String](from: decoder)
        fields = object.keys.sorted().map { Field(name: $0, value: object[$0]!) }
    }

    public func encode(to encoder: any Encoder) throws { try dictionary.encode(to: encoder) }
}
