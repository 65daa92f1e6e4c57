import HeraldStore

extension PostgresDatabase {
    /// Runs a group of small writes (`GroupCommit`) in one transaction on one pooled connection, each in a
    /// savepoint of its own: a write that throws is undone alone, the others commit. A lost serialization
    /// race or a deadlock runs the whole group again, as `write` does for one transaction. Returns the error
    /// that stopped the whole transaction, else nil.
    ///
    /// Durability is the same as one transaction per write: callers are answered after `COMMIT` returned,
    /// that is after PostgreSQL flushed the group's WAL (with the server's `synchronous_commit`).
    func commitGroup(_ writes: [GroupCommit<PostgresConnection>.Write]) async -> Error? {
        do {
            try await write { connection in
                for write in writes { try Self.runInSavepoint(write, connection) }
            }
            return nil
        } catch {
            return error
        }
    }

    private static func runInSavepoint(_ write: GroupCommit<PostgresConnection>.Write, _ connection: PostgresConnection) throws {
        try connection.executeScript("SAVEPOINT herald_group_write")
        do {
            try write.run(connection)
        } catch let error as PostgresError where error.isRetryable || error.isConnectionFailure || error.isStorageFull {
            throw error   // the whole group runs again (a race) or fails, as one transaction would
        } catch {
            try connection.executeScript("ROLLBACK TO SAVEPOINT herald_group_write")
        }
        try connection.executeScript("RELEASE SAVEPOINT herald_group_write")
    }
}
