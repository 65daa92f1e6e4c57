/// A value bound to or read from a SQL statement.
public enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

extension SQLValue {
    public static func int(_ value: Int) -> SQLValue { .integer(Int64(value)) }
    public static func optionalText(_ value: String?) -> SQLValue { value.map(SQLValue.text) ?? .null }
    public static func optionalInt(_ value: Int?) -> SQLValue { value.map { .integer(Int64($0)) } ?? .null }
    public static func bool(_ value: Bool) -> SQLValue { .integer(value ? 1 : 0) }
    public static func optionalReal(_ value: Double?) -> SQLValue { value.map(SQLValue.real) ?? .null }
}
