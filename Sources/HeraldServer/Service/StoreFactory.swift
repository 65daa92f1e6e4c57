import Foundation
import HeraldPostgres
import HeraldSQLite
import HeraldStore

extension HeraldService {
    /// The store the configuration names: PostgreSQL when `store.url` is set, else the SQLite file at
    /// `store.path` (its directory created). Either is migrated before it is returned.
    static func openStore(_ configuration: HeraldConfiguration, now: Date, log: @escaping LogHandler) async throws -> any HeraldStorage {
        if let url = configuration.storeURL {
            return try await PostgresStore(url: url, poolSize: 8, now: now, node: NodeIdentity.make(name: configuration.nodeName))
        }
        let dbURL = URL(fileURLWithPath: configuration.databasePath)
        try FileManager.default.createDirectory(at: dbURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        return try await SQLiteStore(path: configuration.databasePath, now: now) { failure in
            if let failure {
                log(.error, "\(OperationsAPI.storageReason(failure)); /readyz answers 503 meanwhile")
            } else {
                log(.info, "storage has room again: writes succeed and /readyz is ready")
            }
        }
    }
}
