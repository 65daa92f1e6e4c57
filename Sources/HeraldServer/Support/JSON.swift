import Foundation
import HeraldJSON

/// A JSON value as the API handles it: numbers as one kind, objects as dictionaries. The API parses request
/// bodies into this (to report *which* field is wrong) and writes responses from it with sorted keys, so output
/// is stable. Parsing and writing are HeraldJSON's (the one implementation the APNs model and JWTs use too,
/// and the one that is fuzzed); this type only maps to and from its `JSONValue`.
public enum JSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSON])
    case object([String: JSON])

    public subscript(key: String) -> JSON? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    public var stringValue: String? { if case .string(let s) = self { return s }; return nil }
    public var boolValue: Bool? { if case .bool(let b) = self { return b }; return nil }
    public var doubleValue: Double? { if case .number(let n) = self { return n }; return nil }
    public var intValue: Int? {
        if case .number(let n) = self, n.rounded() == n, abs(n) < 9e15 { return Int(n) }
        return nil
    }
    public var arrayValue: [JSON]? { if case .array(let a) = self { return a }; return nil }
    public var objectValue: [String: JSON]? { if case .object(let o) = self { return o }; return nil }
    public var isNull: Bool { self == .null }

    public static func int(_ v: Int) -> JSON { .number(Double(v)) }
    public static func optional(_ v: String?) -> JSON { v.map(JSON.string) ?? .null }
    public static func optional(_ v: Int?) -> JSON { v.map { .number(Double($0)) } ?? .null }
}

extension JSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
                ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSON)...) { self = .object(Dictionary(elements, uniquingKeysWith: { $1 })) }
    public init(nilLiteral: ()) { self = .null }
}

// MARK: - Parsing and writing (HeraldJSON)

extension JSON {
    /// Compact JSON text with object keys sorted.
    public var encoded: String { String(decoding: bytes, as: UTF8.self) }

    public var bytes: [UInt8] { jsonValue.jsonBytes() }

    /// The value in HeraldJSON's model, object keys sorted. Integral numbers below 10^15 are written as
    /// integers (`3`, not `3.0`), as clients expect counts and ids to look.
    public var jsonValue: JSONValue {
        switch self {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .number(let n): return n.rounded() == n && abs(n) < 1e15 ? .int(Int(n)) : .double(n)
        case .string(let s): return .string(s)
        case .array(let a): return .array(a.map(\.jsonValue))
        case .object(let o):
            var object = JSONObject()
            // Keys come sorted and unique, so each is appended without a lookup.
            for key in o.keys.sorted() { if let member = o[key] { object.appendUnchecked(key, member.jsonValue) } }
            return .object(object)
        }
    }

    public init(_ value: JSONValue) {
        switch value {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .int(let i): self = .number(Double(i))
        case .double(let d): self = .number(d)
        case .string(let s): self = .string(s)
        case .array(let a): self = .array(a.map(JSON.init))
        case .object(let o):
            var members: [String: JSON] = [:]
            members.reserveCapacity(o.count)
            for (key, member) in o { members[key] = JSON(member) }
            self = .object(members)
        }
    }

    /// Parses one JSON text (RFC 8259, strict: valid UTF-8, paired surrogates, finite numbers, nesting bounded).
    public init(parsing text: String) throws(JSONParseError) { try self.init(parsing: Array(text.utf8)) }

    public init(parsing bytes: [UInt8]) throws(JSONParseError) {
        self.init(try JSONValue(parsing: bytes, options: JSON.parsingOptions))
    }

    /// No request Herald takes nests deeper than a few levels; 64 keeps hostile nesting far from the stack's limit.
    static let parsingOptions = JSONParsingOptions(maximumDepth: 64)
}
