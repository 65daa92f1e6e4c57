import Foundation

/// Also reachable as `HeraldClient.JSONValue`, for files that import another module with a `JSONValue`
/// (APNSCore, APNSClient, HeraldSimulator): the module name cannot qualify it, the actor's can.
public typealias JSONValue = HeraldClient.JSONValue

extension HeraldClient {
    /// A JSON value: custom push data, installation properties, and anything else whose shape the app decides.
    ///
    /// Readers are lenient on purpose, because real payloads are: ``intValue`` accepts `5`, `5.0` and `"5"`,
    /// ``boolValue`` accepts `true`, `1` and `"1"`, and ``stringValue`` turns numbers into text.
    public enum JSONValue: Sendable, Hashable {
        case null
        case bool(Bool)
        case int(Int)
        case double(Double)
        case string(String)
        case array([JSONValue])
        case object([String: JSONValue])

        /// The member named `key` when this is an object.
        public subscript(key: String) -> JSONValue? {
            if case .object(let members) = self { return members[key] }
            return nil
        }

        /// The value at a path of object keys, e.g. `value["data", "systype"]`.
        public subscript(path: [String]) -> JSONValue? {
            var current: JSONValue? = self
            for key in path { current = current?[key] }
            return current
        }

        /// The members when this is an object.
        public var objectValue: [String: JSONValue]? {
            if case .object(let members) = self { return members }
            return nil
        }

        /// The elements when this is an array.
        public var arrayValue: [JSONValue]? {
            if case .array(let elements) = self { return elements }
            return nil
        }

        /// Text, or a number or boolean written as text.
        public var stringValue: String? {
            switch self {
            case .string(let text): return text
            case .int(let number): return String(number)
            case .double(let number):
                return number.rounded() == number && abs(number) < 1e15 ? String(Int(number)) : String(number)
            case .bool(let flag): return flag ? "true" : "false"
            default: return nil
            }
        }

        /// An integer, from a number, a whole-number string, or a boolean (1/0).
        public var intValue: Int? {
            switch self {
            case .int(let number): return number
            case .double(let number):
                return number.rounded() == number && abs(number) < 1e15 ? Int(number) : nil
            case .string(let text):
                let trimmed = text.trimmingCharacters(in: .whitespaces)
                return Int(trimmed) ?? Double(trimmed).flatMap { JSONValue.double($0).intValue }
            case .bool(let flag): return flag ? 1 : 0
            default: return nil
            }
        }

        /// A floating-point number, from a number or a numeric string.
        public var doubleValue: Double? {
            switch self {
            case .int(let number): return Double(number)
            case .double(let number): return number
            case .string(let text): return Double(text.trimmingCharacters(in: .whitespaces))
            default: return nil
            }
        }

        /// A flag, from a boolean, a number (non-zero is true) or text ("1", "true", "yes").
        public var boolValue: Bool? {
            switch self {
            case .bool(let flag): return flag
            case .int(let number): return number != 0
            case .double(let number): return number != 0
            case .string(let text):
                switch text.trimmingCharacters(in: .whitespaces).lowercased() {
                case "1", "true", "yes": return true
                case "0", "false", "no", "": return false
                default: return nil
                }
            default: return nil
            }
        }

        /// Equality that ignores how a scalar was written: `5`, `5.0` and `"5"` match, as do `true` and `1`.
        public func looselyEquals(_ other: JSONValue) -> Bool {
            if self == other { return true }
            switch (self, other) {
            case (.bool(let flag), _): return other.boolValue == flag
            case (_, .bool): return other.looselyEquals(self)
            default:
                guard let left = stringValue, let right = other.stringValue else { return false }
                if left == right { return true }
                if let l = doubleValue, let r = other.doubleValue { return l == r }
                return false
            }
        }
    }
}

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let number = try? container.decode(Int.self) {
            self = .int(number)
        } else if let number = try? container.decode(Double.self) {
            self = .double(number)
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let elements = try? container.decode([JSONValue].self) {
            self = .array(elements)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let flag): try container.encode(flag)
        case .int(let number): try container.encode(number)
        case .double(let number): try container.encode(number)
        case .string(let text): try container.encode(text)
        case .array(let elements): try container.encode(elements)
        case .object(let members): try container.encode(members)
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(nilLiteral: ()) { self = .null }
}
