import Foundation
import HeraldStore
import Synchronization

/// Herald's storage on one SQLite file (WAL). All statements are fixed SQL with bound parameters; values
/// lists travel as one JSON array parameter read with `json_each`, so no SQL text is ever built from input.
public final class SQLiteStore: HeraldStorage {
    let database: SQLiteDatabase
    /// The delivery journal's file, beside the main one (`journalPath`): a commit of it every few
    /// milliseconds during a fan-out must not queue behind the main file's page writes, which take tens
    /// of milliseconds, or a crash re-sends what was accepted meanwhile.
    let journal: SQLiteDatabase
    /// The pushes the journal's file holds entries of, so that ending a push whose deliveries were never
    /// journaled (every small push: its page is written before the journal's next commit) writes nothing.
    let journaledPushes = Mutex<Set<String>>([])
    /// Registrations and other one-installation writes, committed in groups (`GroupCommit`).
    let installationWrites: GroupCommit<SQLiteConnection>
    public let node: String
    public var isShared: Bool { false }

    /// Opens the database at `path` and applies pending migrations. `storageChanged` hears when writes
    /// start failing for lack of space and when they succeed again (nil). Claims are recorded under `node`.
    public init(path: String, now: Date = Date(), node: String = NodeIdentity.make(),
                storageChanged: @escaping @Sendable (StoreError?) -> Void = { _ in }) async throws {
        self.node = node
        database = try SQLiteDatabase(path: path, storageChanged: storageChanged)
        journal = try SQLiteDatabase(path: Self.journalPath(for: path))
        installationWrites = GroupCommit(serial: { [database] in database.enqueueOnWriter($0) },
                                         perform: { [database] in database.commitGroupOnWriter($0, arrivals: $1) })
        let stamp = now.timeIntervalSince1970
        _ = try await database.withWriter { try Migrator.migrate($0, migrations: SQLiteSchema.migrations, now: stamp) }
        _ = try await journal.withWriter { try Migrator.migrate($0, migrations: SQLiteSchema.journalMigrations, now: stamp) }
        let journaled = try await journal.read { db in try db.all("SELECT DISTINCT push_id FROM delivery_journal") { $0.text(0) } }
        journaledPushes.withLock { $0 = Set(journaled) }
    }

    /// The delivery journal's file for the database at `path`: `herald.sqlite` -> `herald-accepted.sqlite`.
    /// (Not `herald.sqlite-journal`: that name is SQLite's own rollback journal.)
    public static func journalPath(for path: String) -> String {
        let url = URL(fileURLWithPath: path)
        let name = url.pathExtension.isEmpty ? url.lastPathComponent : url.deletingPathExtension().lastPathComponent
        return url.deletingLastPathComponent().appendingPathComponent(name + "-accepted.sqlite").path
    }

    public func schemaVersion() async throws -> Int {
        try await database.read { try $0.first("SELECT max(version) FROM schema_migrations") { $0.int(0) } ?? 0 }
    }

    public func ping() async throws {
        _ = try await database.read { try $0.first("SELECT 1") { $0.int(0) } }
    }

    public func checkStorage() async -> StoreError? { await database.checkStorage() }
}

extension Date {
    var sql: SQLValue { .real(timeIntervalSince1970) }
    init(sql seconds: Double) { self.init(timeIntervalSince1970: seconds) }
}

extension Optional where Wrapped == Date {
    var sql: SQLValue { map { .real($0.timeIntervalSince1970) } ?? .null }
}

extension SQLiteRow {
    func date(_ column: Int) -> Date { Date(sql: double(column)) }
    func optionalDate(_ column: Int) -> Date? { optionalDouble(column).map(Date.init(sql:)) }
}

/// A JSON array of strings, as the single parameter `json_each` reads. Built as UTF-8 bytes: an import
/// sends a few thousand device tokens per batch through here, and appending `String`s scalar by scalar
/// was a tenth of the import's CPU time.
func jsonArray(_ values: [String]?) -> SQLValue {
    guard let values else { return .null }
    var out: [UInt8] = [UInt8(ascii: "[")]
    out.reserveCapacity(values.reduce(2) { $0 + $1.utf8.count + 3 })
    let hex = Array("0123456789abcdef".utf8)
    for (i, v) in values.enumerated() {
        if i > 0 { out.append(UInt8(ascii: ",")) }
        out.append(UInt8(ascii: "\""))
        for byte in v.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), byte]
            case 0..<0x20: out += [UInt8(ascii: "\\"), UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
    out.append(UInt8(ascii: "]"))
    return .text(String(decoding: out, as: UTF8.self))
}

/// A JSON array of integers (row ids), as the single parameter `json_each` reads: one statement then
/// changes a whole batch of rows.
func jsonArray(_ values: [Int64]) -> SQLValue {
    var out = "["
    out.reserveCapacity(values.count * 8 + 2)
    for (i, v) in values.enumerated() {
        if i > 0 { out += "," }
        out += String(v)
    }
    return .text(out + "]")
}
