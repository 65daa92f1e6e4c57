import Foundation
import HeraldStore

extension PostgresStore {
    public func installationIDsInUse(_ ids: [String]) async throws -> Set<String> {
        guard !ids.isEmpty else { return [] }
        return try await database.read {
            Set(try $0.all("SELECT id FROM installations WHERE id = ANY($1::text[])", [PGArray.text(ids)]) { $0.text(0) })
        }
    }
}
