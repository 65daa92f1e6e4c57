import HeraldStore

extension SQLiteDatabase {
    /// Runs a group of small writes (`GroupCommit`) in one `BEGIN IMMEDIATE ... COMMIT` on the writer, as if
    /// each ran in a savepoint of its own: a write that throws is undone alone, the others commit. The writes
    /// that arrive meanwhile (`arrivals`) run in the same transaction before it commits. Returns the error that
    /// stopped the whole transaction (its commit, or a full disk: `StoreError.storageFull`), else nil.
    /// Runs on the writer's queue (`GroupCommit`'s serial lane, through `enqueueOnWriter`).
    ///
    /// Writes rarely fail, so the group first runs without savepoints (each costs two statements and a copy
    /// of every page the write changes). If one throws, that transaction is rolled back and the group runs
    /// again, each write in a savepoint: the failing one fails alone, as `GroupCommit.Write.run` allows.
    ///
    /// Durability is the same as one transaction per write: callers are answered after `COMMIT` returned,
    /// when the WAL holds the group's frames, which a killed process does not lose.
    func commitGroupOnWriter(_ writes: [GroupCommit<SQLiteConnection>.Write],
                             arrivals: () -> [GroupCommit<SQLiteConnection>.Write]) -> Error? {
        var taken = writes
        do {
            try trackedWrite { connection in
                do {
                    try connection.transaction {
                        var pending = writes
                        while !pending.isEmpty {
                            for write in pending { try write.run(connection) }
                            pending = arrivals()
                            taken += pending
                        }
                    }
                } catch let error as SQLiteError where error.isStorageFull {
                    throw error   // the whole group fails, as one transaction would
                } catch {
                    try connection.transaction {
                        for write in taken { try Self.runInSavepoint(write, connection) }
                    }
                }
            }
            return nil
        } catch {
            return error
        }
    }

    private static func runInSavepoint(_ write: GroupCommit<SQLiteConnection>.Write, _ connection: SQLiteConnection) throws {
        try connection.execute("SAVEPOINT herald_group_write")
        do {
            try write.run(connection)
        } catch let error as SQLiteError where error.isStorageFull {
            throw error   // the whole group fails, as one transaction would (and the store remembers the full disk)
        } catch {
            // Only this write's changes go; when SQLite already ended the transaction, this throws and the
            // group fails as a whole.
            try connection.execute("ROLLBACK TO herald_group_write")
        }
        try connection.execute("RELEASE herald_group_write")
    }
}
