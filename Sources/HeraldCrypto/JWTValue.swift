import HeraldJSON

extension JWT {
    /// A JSON value, as JWT headers and claims hold them. Kept here (rather than using JSONSerialization) so
    /// that parsing and building tokens stays off Foundation and its NSNumber bridging.
    public enum Value: Sendable, Equatable, Hashable {
        case string(String)
        /// A number written without fraction or exponent that fits in 64 bits.
        case integer(Int64)
        case number(Double)
        case bool(Bool)
        case null
        case array([Value])
        case object([String: Value])

        /// The string, if this is one.
        public var stringValue: String? {
            if case .string(let value) = self { return value }
            return nil
        }

        /// The integer, if this is an integral number.
        public var integerValue: Int64? {
            switch self {
            case .integer(let value): return value
            case .number(let value) where value.rounded() == value && abs(value) < 9.0e15: return Int64(value)
            default: return nil
            }
        }

        /// Compact JSON text; object keys sorted so equal values encode identically.
        public var jsonText: String { String(decoding: jsonValue.jsonBytes(), as: UTF8.self) }

        /// Parses JSON text (RFC 8259); nil if it is not valid JSON, names a key twice in one object (two
        /// readers of a token must not see different claims) or nests deeper than 64 levels.
        public init?<S: StringProtocol>(parsing text: S) {
            self.init(parsing: Array(text.utf8))
        }

        /// Parses UTF-8 JSON bytes, as `init(parsing:)` above.
        public init?(parsing bytes: [UInt8]) {
            guard let value = try? JSONValue(parsing: bytes, options: Self.parsingOptions) else { return nil }
            self.init(value)
        }

        static let parsingOptions = JSONParsingOptions(maximumDepth: 64, rejectsDuplicateKeys: true)
    }
}

// JSON text itself is HeraldJSON's (the one parser and writer the APNs model and the server use); a JWT value
// only maps to and from its model.
extension JWT.Value {
    init(_ value: JSONValue) {
        switch value {
        case .null: self = .null
        case .bool(let bool): self = .bool(bool)
        case .int(let int): self = .integer(Int64(int))
        case .double(let double): self = .number(double)
        case .string(let string): self = .string(string)
        case .array(let elements): self = .array(elements.map(JWT.Value.init))
        case .object(let members):
            var object: [String: JWT.Value] = [:]
            for (key, member) in members { object[key] = JWT.Value(member) }
            self = .object(object)
        }
    }

    /// Object keys sorted, so equal values encode identically.
    var jsonValue: JSONValue {
        switch self {
        case .null: return .null
        case .bool(let bool): return .bool(bool)
        case .integer(let integer): return .int(Int(integer))
        case .number(let number): return .double(number)
        case .string(let string): return .string(string)
        case .array(let elements): return .array(elements.map(\.jsonValue))
        case .object(let members): return JWT.Value.object(members.sorted { $0.key < $1.key })
        }
    }

    /// An object with its members in the given order (a JWT header puts `alg` first), as compact JSON.
    static func encodeObject(_ members: [(key: String, value: JWT.Value)]) -> [UInt8] {
        object(members).jsonBytes()
    }

    private static func object(_ members: [(key: String, value: JWT.Value)]) -> JSONValue {
        var object = JSONObject()
        for member in members { object[member.key] = member.value.jsonValue }
        return .object(object)
    }
}
