import HeraldStore

extension PostgresDatabase {
    /// Runs a group of small writes (`GroupCommit`) in one transaction on one pooled connection, as if each
    /// ran in a savepoint of its own: a write that throws is undone alone, the others commit. A lost
    /// serialization race or a deadlock runs the whole group again, as `write` does for one transaction.
    /// Returns the error that stopped the whole transaction, else nil.
    ///
    /// Writes rarely fail, so the group first runs without savepoints: each costs two more round trips to
    /// PostgreSQL per write (`SAVEPOINT`, `RELEASE`), and a registration is only three. If a write throws,
    /// that transaction is rolled back and the group runs again: the writes before the one that threw as
    /// they did, that one and those after it each in a savepoint, so a failing write fails alone (as SQLite's
    /// `commitGroupOnWriter` does). Should an earlier write throw in that run (another transaction changed
    /// what it found meanwhile), the next run puts savepoints from that one on, and so on: each run has
    /// savepoints from an earlier write than the last, so the runs end.
    ///
    /// A group of registrations first runs its `batch` in each run of the transaction, before the writes
    /// (which then find most of their work done; all of it, and the transaction committed, when every
    /// registration was new or a plain re-registration). A batch expected to be all new that was not
    /// (`RegistrationBatch.KeysNotNew`: nothing written) runs again with its lookups. Should the batch's own
    /// statements fail (a value PostgreSQL refuses, in one registration of the group), the group runs again
    /// without it, one write at a time, so that only the registration at fault fails.
    ///
    /// Durability is the same as one transaction per write: callers are answered after `COMMIT` returned,
    /// that is after PostgreSQL flushed the group's WAL (with the server's `synchronous_commit`).
    func commitGroup(_ writes: [GroupCommit<PostgresConnection>.Write], batch: RegistrationBatch? = nil) async -> Error? {
        var savepointsFrom = writes.count
        var batch = batch
        while true {
            do {
                try await write { [savepointsFrom, batch] connection in
                    let committed: Bool
                    do {
                        committed = try batch?.write(connection) ?? false
                    } catch let error as PostgresError where Self.failsTheGroup(error) {
                        throw error
                    } catch let notNew as RegistrationBatch.KeysNotNew {
                        throw notNew
                    } catch {
                        throw TheBatchFailed()
                    }
                    if committed {
                        // Each body only answers what the batch did for it (an error, at most, is its own).
                        for write in writes { try? write.run(connection) }
                        return
                    }
                    for (index, write) in writes.enumerated() {
                        guard index < savepointsFrom else {
                            try Self.runInSavepoint(write, connection)
                            continue
                        }
                        do {
                            try write.run(connection)
                        } catch let error as PostgresError where Self.failsTheGroup(error) {
                            throw error
                        } catch {
                            throw AWriteFailed(index: index)
                        }
                    }
                }
                return nil
            } catch let failed as AWriteFailed {
                savepointsFrom = failed.index
            } catch is TheBatchFailed {
                batch?.forget()
                batch = nil
            } catch is RegistrationBatch.KeysNotNew {
                batch = batch?.lookingUpStoredKeys()
            } catch {
                return error
            }
        }
    }

    /// A write that ran without a savepoint failed on its own: the group runs again, savepoints from it on.
    private struct AWriteFailed: Error {
        let index: Int
    }

    /// The group's batch failed on its own: the group runs again without it.
    private struct TheBatchFailed: Error {}

    /// Errors that end the whole group's transaction rather than one write: a race or deadlock (`write`
    /// runs the group again), a lost connection, a full disk.
    private static func failsTheGroup(_ error: PostgresError) -> Bool {
        error.isRetryable || error.isConnectionFailure || error.isStorageFull
    }

    private static func runInSavepoint(_ write: GroupCommit<PostgresConnection>.Write, _ connection: PostgresConnection) throws {
        try connection.executeScript("SAVEPOINT herald_group_write")
        do {
            try write.run(connection)
        } catch let error as PostgresError where failsTheGroup(error) {
            throw error   // the whole group runs again (a race) or fails, as one transaction would
        } catch {
            try connection.executeScript("ROLLBACK TO SAVEPOINT herald_group_write")
        }
        try connection.executeScript("RELEASE SAVEPOINT herald_group_write")
    }
}
