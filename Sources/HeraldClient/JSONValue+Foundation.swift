import Foundation

extension JSONValue {
    /// Converts what Foundation hands out (a notification's `userInfo`, `JSONSerialization` output,
    /// Swift literals) into a JSON value. Returns nil for values JSON cannot hold (dates, data, objects).
    public init?(foundationValue value: Any) {
        switch value {
        case is NSNull:
            self = .null
        case let text as String:
            self = .string(text)
        case let number as NSNumber:
            self = JSONValue(number: number)
        case let elements as [Any]:
            self = .array(elements.compactMap { JSONValue(foundationValue: $0) })
        case let members as [String: Any]:
            self = .object(members.compactMapValues { JSONValue(foundationValue: $0) })
        case let members as [AnyHashable: Any]:
            var converted: [String: JSONValue] = [:]
            for (key, member) in members {
                if let member = JSONValue(foundationValue: member) { converted["\(key.base)"] = member }
            }
            self = .object(converted)
        default:
            return nil
        }
    }

    /// Booleans arrive as NSNumber both from JSONSerialization and from bridged Swift `Bool`s; their
    /// Objective-C type is `c` (char) on Apple platforms and in swift-corelibs-foundation alike.
    private init(number: NSNumber) {
        switch String(cString: number.objCType) {
        case "c", "B": self = .bool(number.boolValue)
        case "d", "f": self = .double(number.doubleValue)
        default: self = .int(number.intValue)
        }
    }

    /// The value as Foundation objects, for APIs that want `[AnyHashable: Any]` or `JSONSerialization`.
    public var foundationValue: Any {
        switch self {
        case .null: return NSNull()
        case .bool(let flag): return flag
        case .int(let number): return number
        case .double(let number): return number
        case .string(let text): return text
        case .array(let elements): return elements.map(\.foundationValue)
        case .object(let members): return members.mapValues(\.foundationValue)
        }
    }
}
