import Foundation
import HeraldStore

extension SQLiteStore {
    public func installationIDsInUse(_ ids: [String]) async throws -> Set<String> {
        guard !ids.isEmpty else { return [] }
        return try await database.read {
            Set(try $0.all("SELECT id FROM installations WHERE id IN (SELECT value FROM json_each(?))", [jsonArray(ids)]) { $0.text(0) })
        }
    }
}
