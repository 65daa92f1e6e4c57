import Synchronization

/// Whether each app's last group of registrations was all new devices. The app's next group of registrations
/// alone is then expected to be all new too and skips its lookups (`RegistrationBatch.expectsAllNew`): a burst
/// of new devices (a release, a campaign, row 4 of the bench) is written at one round trip a group, while a
/// launch spike of known devices re-registering keeps the lookups their updates need. A wrong guess costs a
/// round trip that writes nothing; the group then runs with its lookups and the guess follows what it found.
/// Per app, so that one app's new devices do not make another app's known ones guess wrong.
final class RecentRegistrations: Sendable {
    private struct State {
        var allNew: [String: Bool] = [:]
        var expected = 0
        var wrong = 0
    }
    private let state = Mutex(State())

    /// Apps remembered at most; past it the memory starts over (every app then looks its keys up once).
    static let maxApps = 10_000

    func expectAllNew(appID: String) -> Bool { state.withLock { $0.allNew[appID] ?? false } }

    func record(appIDs: some Sequence<String>, allNew: Bool) {
        state.withLock { s in
            if s.allNew.count >= Self.maxApps { s.allNew.removeAll() }
            for app in appIDs { s.allNew[app] = allNew }
        }
    }

    /// A group written as expected new, and whether the guess was wrong.
    func guessed(wrong: Bool) { state.withLock { s in s.expected += 1; if wrong { s.wrong += 1 } } }

    /// Groups written as expected new, and those of them that were not (tests).
    var guesses: (expected: Int, wrong: Int) { state.withLock { ($0.expected, $0.wrong) } }
}
