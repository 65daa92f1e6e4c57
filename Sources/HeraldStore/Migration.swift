/// A numbered schema change. Versions only grow; an applied migration is never edited, only followed.
public struct Migration: Sendable {
    public var version: Int
    public var name: String
    public var sql: String

    public init(version: Int, name: String, sql: String) {
        self.version = version; self.name = name; self.sql = sql
    }
}
