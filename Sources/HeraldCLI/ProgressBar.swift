import Foundation

/// A one-line progress display on standard error, redrawn a few times a second.
final class ProgressBar: @unchecked Sendable {
    private let total: Int
    private let tally: SendTally
    private var task: Task<Void, Never>?
    private let started = Date()

    init(total: Int, tally: SendTally) {
        self.total = total
        self.tally = tally
    }

    func start() {
        task = Task { [self] in
            while !Task.isCancelled {
                draw()
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
    }

    func stop() {
        task?.cancel()
        draw()
        FileHandle.standardError.write(Data("\n".utf8))
    }

    private func draw() {
        let done = tally.done
        let width = 30
        let filled = total == 0 ? width : width * done / total
        let rate = Double(done) / max(0.001, Date().timeIntervalSince(started))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        let line = "\r[\(bar)] \(done)/\(total)  \(Int(rate))/s  failed \(tally.failed)"
        FileHandle.standardError.write(Data(line.utf8))
    }
}
