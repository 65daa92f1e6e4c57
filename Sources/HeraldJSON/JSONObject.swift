/// A JSON object whose members keep their insertion order.
///
/// Setting an existing key replaces its value in place; setting `nil` removes the member.
/// Lookups are linear, which beats hashing for the handful of keys a push payload carries.
public struct JSONObject: Sendable {
    public private(set) var keys: [String]
    public private(set) var values: [JSONValue]

    /// An empty object.
    public init() {
        keys = []
        values = []
    }

    /// The number of members.
    public var count: Int { keys.count }

    /// Whether the object has no members.
    public var isEmpty: Bool { keys.isEmpty }

    /// The value of the member named `key`; assigning `nil` removes the member.
    public subscript(key: String) -> JSONValue? {
        get {
            guard let index = keys.firstIndex(of: key) else { return nil }
            return values[index]
        }
        set {
            if let index = keys.firstIndex(of: key) {
                if let newValue {
                    values[index] = newValue
                } else {
                    keys.remove(at: index)
                    values.remove(at: index)
                }
            } else if let newValue {
                keys.append(key)
                values.append(newValue)
            }
        }
    }

    /// Whether a member named `key` exists (its value may be `null`).
    public func contains(_ key: String) -> Bool {
        keys.contains(key)
    }

    /// Replaces the value of the member at `index`.
    package mutating func replaceValue(at index: Int, with value: JSONValue) {
        values[index] = value
    }

    /// Appends a member without looking for an existing one; the caller guarantees `key` is new.
    package mutating func appendUnchecked(_ key: String, _ value: JSONValue) {
        keys.append(key)
        values.append(value)
    }
}

extension JSONObject: Equatable {
    /// Objects are equal when they have the same members, in any order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        if lhs.keys == rhs.keys { return lhs.values == rhs.values }
        for (key, value) in lhs where rhs[key] != value {
            return false
        }
        return true
    }
}

extension JSONObject: Sequence {
    public struct Iterator: IteratorProtocol {
        let object: JSONObject
        var index = 0

        public mutating func next() -> (key: String, value: JSONValue)? {
            guard index < object.keys.count else { return nil }
            defer { index += 1 }
            return (object.keys[index], object.values[index])
        }
    }

    public func makeIterator() -> Iterator {
        Iterator(object: self)
    }

    public var underestimatedCount: Int { count }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// Members in literal order; a repeated key keeps its first position and its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init()
        for (key, value) in elements { self[key] = value }
    }
}

extension JSONObject: CustomStringConvertible {
    /// Compact JSON text.
    public var description: String {
        JSONValue.object(self).description
    }
}
