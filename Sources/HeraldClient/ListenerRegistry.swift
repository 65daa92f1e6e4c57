/// Listeners held weakly, in the order they were added, each at most once.
struct ListenerRegistry: Sendable {
    private struct Entry: Sendable {
        weak var listener: (any PushListener)?
        let id: ObjectIdentifier
    }

    private var entries: [Entry] = []

    /// Adds `listener` unless it is already there.
    mutating func add(_ listener: any PushListener) {
        compact()
        let id = ObjectIdentifier(listener)
        guard !entries.contains(where: { $0.id == id }) else { return }
        entries.append(Entry(listener: listener, id: id))
    }

    mutating func remove(_ listener: any PushListener) {
        let id = ObjectIdentifier(listener)
        entries.removeAll { $0.id == id || $0.listener == nil }
    }

    /// The listeners still alive.
    var live: [any PushListener] {
        entries.compactMap(\.listener)
    }

    private mutating func compact() {
        entries.removeAll { $0.listener == nil }
    }
}
