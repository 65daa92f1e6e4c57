import Foundation

/// The ids of pushes whose opening was reported, oldest first, bounded so it never grows without limit.
struct OpenHistory: Sendable {
    static let storageKey = "reported-opens"

    private(set) var ids: [String]
    private var lookup: Set<String>
    let limit: Int

    init(ids: [String] = [], limit: Int) {
        self.limit = limit
        self.ids = Array(ids.suffix(limit))
        self.lookup = Set(self.ids)
    }

    func contains(_ id: String) -> Bool {
        lookup.contains(id)
    }

    mutating func insert(_ id: String) {
        guard !lookup.contains(id) else { return }
        ids.append(id)
        lookup.insert(id)
        if ids.count > limit {
            let dropped = ids.removeFirst()
            lookup.remove(dropped)
        }
    }

    static func load(from storage: any KeyValueStorage, limit: Int) throws -> OpenHistory {
        guard let data = try storage.data(forKey: storageKey),
              let ids = try? JSONDecoder().decode([String].self, from: data) else {
            return OpenHistory(limit: limit)
        }
        return OpenHistory(ids: ids, limit: limit)
    }

    func save(to storage: any KeyValueStorage) throws {
        try storage.setData(try JSONEncoder().encode(ids), forKey: Self.storageKey)
    }
}
