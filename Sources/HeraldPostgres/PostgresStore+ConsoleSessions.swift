import Foundation
import HeraldStore

extension PostgresStore {
    public func insertConsoleSession(_ session: ConsoleSessionRecord, pruneBefore: Date) async throws {
        try await database.write { db in
            _ = try db.execute("DELETE FROM console_sessions WHERE last_seen_at < $1", [pruneBefore.pg])
            _ = try db.execute("INSERT INTO console_sessions (id_hash, key_hash, created_at, last_seen_at) VALUES ($1, $2, $3, $4)",
                               [.blob(session.idHash), .blob(session.keyHash), session.createdAt.pg, session.lastSeenAt.pg])
        }
    }

    public func consoleSession(idHash: [UInt8]) async throws -> ConsoleSessionRecord? {
        try await database.read {
            try $0.first("SELECT id_hash, key_hash, created_at, last_seen_at FROM console_sessions WHERE id_hash = $1", [.blob(idHash)]) {
                ConsoleSessionRecord(idHash: $0.blob(0), keyHash: $0.blob(1), createdAt: $0.date(2), lastSeenAt: $0.date(3))
            }
        }
    }

    public func touchConsoleSession(idHash: [UInt8], at: Date) async throws {
        try await database.write {
            _ = try $0.execute("UPDATE console_sessions SET last_seen_at = greatest(last_seen_at, $1) WHERE id_hash = $2", [at.pg, .blob(idHash)])
        }
    }

    public func deleteConsoleSession(idHash: [UInt8]) async throws -> Bool {
        try await database.write { try $0.execute("DELETE FROM console_sessions WHERE id_hash = $1", [.blob(idHash)]) > 0 }
    }
}
