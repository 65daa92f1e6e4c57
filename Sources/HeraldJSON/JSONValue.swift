/// A JSON value that keeps what Foundation's `JSONSerialization` loses: integers and doubles stay
/// distinct (`1` is not `1.0`), and object members keep their order.
///
/// Used for custom payload data, Live Activity `content-state` / `attributes`, and for reading
/// arbitrary payloads (the simulator shows what a device would receive).
///
/// Equality is semantic for objects: two objects are equal when they hold the same members,
/// whatever their order. Numbers compare by kind first: `.int(1) != .double(1)`.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

extension JSONValue {
    /// The string, if this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The integer, if this is an integer, or a double with no fractional part that fits an `Int`.
    public var intValue: Int? {
        switch self {
        case .int(let value): return value
        case .double(let value):
            guard value.rounded(.towardZero) == value, let exact = Int(exactly: value) else { return nil }
            return exact
        default: return nil
        }
    }

    /// The number as a `Double`, if this is a number.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    /// The Boolean, if this is a Boolean.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The array, if this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The object, if this is an object.
    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// Whether this is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The member named `key`, if this is an object that has one.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// A short name of the value's kind and, for scalars, the value itself; used in error messages.
    package var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return "boolean \(value)"
        case .int(let value): return "integer \(value)"
        case .double(let value): return "number \(value)"
        case .string(let value):
            let shown = value.count > 40 ? String(value.prefix(40)) + "…" : value
            return "string \"\(shown)\""
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var object = JSONObject()
        for (key, value) in elements { object[key] = value }
        self = .object(object)
    }
}

extension JSONValue: CustomStringConvertible {
    /// Compact JSON text.
    public var description: String {
        String(decoding: jsonBytes(), as: UTF8.self)
    }
}
