import Foundation

/// A `where` of LeanCloud's query language on `_Installation`: equality, `$ne`, `$in`, `$nin`, `$all`, `$exists`,
/// `$lt`/`$lte`/`$gt`/`$gte`, combined with `$or` and `$and`. Equality on an array field (`channels`) means the
/// array contains the value, as in LeanCloud. `{"__type":"Date","iso":...}` values compare as times.
/// Bounded: at most `maxDepth` levels and `maxValues` values per list.
indirect enum LeanCloudWhere: Sendable {
    case and([LeanCloudWhere])
    case or([LeanCloudWhere])
    case field(String, Condition)

    enum Condition: Sendable {
        case equals(JSON)
        case notEquals(JSON)
        case oneOf([JSON])
        case noneOf([JSON])
        case containsAll([JSON])
        case exists(Bool)
        case compare(String, JSON)
    }

    static let maxDepth = 8
    static let maxValues = 1000
    static let comparisons: Set<String> = ["$lt", "$lte", "$gt", "$gte"]
    static let operators: Set<String> = Set(["$ne", "$in", "$nin", "$all", "$exists"]).union(comparisons)

    /// Parses `where` (the JSON text of a query parameter, or the object inside a push body).
    static func parse(_ json: JSON, path: String = "where", depth: Int = 0) throws -> LeanCloudWhere {
        guard depth < maxDepth else { throw ServiceError.invalid(path, "\(path) is nested more than \(maxDepth) levels deep.") }
        guard let object = json.objectValue else { throw ServiceError.invalid(path, "\(path) must be a JSON object such as {\"channels\":\"news\"}.") }
        var parts: [LeanCloudWhere] = []
        for key in object.keys.sorted() {
            let value = object[key]!
            let name = "\(path).\(key)"
            switch key {
            case "$or", "$and":
                guard let list = value.arrayValue, !list.isEmpty, list.count <= maxValues else {
                    throw ServiceError.invalid(name, "\(name) must be a list of 1–\(maxValues) conditions.")
                }
                let sub = try list.enumerated().map { try parse($1, path: "\(name)[\($0)]", depth: depth + 1) }
                parts.append(key == "$or" ? .or(sub) : .and(sub))
            case _ where key.hasPrefix("$"):
                throw ServiceError.invalid(name, "\(key) is not supported here; use field conditions, $or or $and.")
            default:
                for condition in try conditions(value, path: name) { parts.append(.field(key, condition)) }
            }
        }
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    private static func conditions(_ value: JSON, path: String) throws -> [Condition] {
        guard let object = value.objectValue, object.keys.contains(where: { $0.hasPrefix("$") }) else {
            return [.equals(try typed(value, path: path))]
        }
        return try object.keys.sorted().map { op in
            let operand = object[op]!
            let name = "\(path).\(op)"
            switch op {
            case "$ne": return .notEquals(try typed(operand, path: name))
            case "$in", "$nin", "$all":
                guard let list = operand.arrayValue, list.count <= maxValues else { throw ServiceError.invalid(name, "\(name) must be a list of at most \(maxValues) values.") }
                let values = try list.map { try typed($0, path: name) }
                return op == "$in" ? .oneOf(values) : op == "$nin" ? .noneOf(values) : .containsAll(values)
            case "$exists":
                guard let flag = operand.boolValue else { throw ServiceError.invalid(name, "\(name) must be true or false.") }
                return .exists(flag)
            case _ where comparisons.contains(op):
                return .compare(op, try typed(operand, path: name))
            default:
                throw ServiceError.invalid(name, "\(op) is not supported; use \(operators.sorted().joined(separator: ", ")), $or or $and.")
            }
        }
    }

    /// A `{"__type":"Date","iso":...}` value as the ISO text the installation's dates are written in.
    static func typed(_ value: JSON, path: String) throws -> JSON {
        guard let object = value.objectValue, let type = object["__type"]?.stringValue else { return value }
        guard type == "Date", let iso = object["iso"]?.stringValue, let date = ISO8601.parse(iso) else {
            throw ServiceError.invalid(path, "\(path): only {\"__type\":\"Date\",\"iso\":\"...\"} typed values are supported.")
        }
        return .string(ISO8601.string(date))
    }

    /// Whether an installation, in LeanCloud's shape (`LeanCloudInstallation.json`), satisfies the query.
    func matches(_ object: [String: JSON]) -> Bool {
        switch self {
        case .and(let parts): return parts.allSatisfy { $0.matches(object) }
        case .or(let parts): return parts.contains { $0.matches(object) }
        case .field(let key, let condition): return Self.test(condition, object[key].map(Self.comparable))
        }
    }

    /// Dates stored as `{"__type":"Date"}` compare as their ISO text.
    private static func comparable(_ value: JSON) -> JSON { (try? typed(value, path: "")) ?? value }

    private static func test(_ condition: Condition, _ value: JSON?) -> Bool {
        let present = value.map { !$0.isNull } ?? false
        let elements = value?.arrayValue ?? value.map { [$0] } ?? []
        switch condition {
        case .equals(let v): return v.isNull ? !present : (value == v || elements.contains(v))
        case .notEquals(let v): return v.isNull ? present : !(value == v || elements.contains(v))
        case .oneOf(let list): return elements.contains(where: list.contains)
        case .noneOf(let list): return !elements.contains(where: list.contains)
        case .containsAll(let list): return list.allSatisfy(elements.contains)
        case .exists(let flag): return present == flag
        case .compare(let op, let bound):
            guard let value, let order = order(value, bound) else { return false }
            switch op {
            case "$lt": return order == .orderedAscending
            case "$lte": return order != .orderedDescending
            case "$gt": return order == .orderedDescending
            default: return order != .orderedAscending
            }
        }
    }

    /// Numbers by value, strings (and ISO dates) by text; nil when the two cannot be ordered.
    static func order(_ a: JSON, _ b: JSON) -> ComparisonResult? {
        switch (a, b) {
        case (.number(let x), .number(let y)): return x < y ? .orderedAscending : x > y ? .orderedDescending : .orderedSame
        case (.string(let x), .string(let y)): return x < y ? .orderedAscending : x > y ? .orderedDescending : .orderedSame
        case (.bool(let x), .bool(let y)): return x == y ? .orderedSame : (!x ? .orderedAscending : .orderedDescending)
        default: return nil
        }
    }

    /// Top-level conditions (the parts of an `$and` at the root), for narrowing a scan.
    var conjuncts: [LeanCloudWhere] {
        if case .and(let parts) = self { return parts.flatMap(\.conjuncts) }
        return [self]
    }
}
