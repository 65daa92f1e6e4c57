/// Identifies a timer scheduled on an `EventLoop`.
public struct TimerID: Hashable, Sendable {
    let raw: UInt64
}

/// A binary min-heap of deadlines. Cancelled timers stay in the heap and are skipped when they come up,
/// which keeps cancel O(1).
struct TimerHeap {
    private var heap: [(deadline: UInt64, id: UInt64)] = []
    private var bodies: [UInt64: () -> Void] = [:]
    private var nextID: UInt64 = 1

    mutating func nextDeadline() -> UInt64? {
        while let top = heap.first, bodies[top.id] == nil { popTop() }
        return heap.first?.deadline
    }

    mutating func add(deadline: UInt64, _ body: @escaping () -> Void) -> TimerID {
        let id = nextID
        nextID += 1
        bodies[id] = body
        heap.append((deadline, id))
        siftUp(heap.count - 1)
        return TimerID(raw: id)
    }

    mutating func cancel(_ id: TimerID) { bodies[id.raw] = nil }

    /// The next due timer's body, removed from the heap. The caller runs it outside this struct's
    /// access, since the body may schedule or cancel timers.
    mutating func popExpired(now: UInt64) -> (() -> Void)? {
        while let top = heap.first, top.deadline <= now {
            popTop()
            if let body = bodies.removeValue(forKey: top.id) { return body }
        }
        return nil
    }

    private mutating func popTop() {
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        if !heap.isEmpty { siftDown(0) }
    }

    private mutating func siftUp(_ i: Int) {
        var child = i
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].deadline < heap[parent].deadline else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ i: Int) {
        var parent = i
        while true {
            let l = 2 * parent + 1, r = l + 1
            var smallest = parent
            if l < heap.count && heap[l].deadline < heap[smallest].deadline { smallest = l }
            if r < heap.count && heap[r].deadline < heap[smallest].deadline { smallest = r }
            if smallest == parent { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
