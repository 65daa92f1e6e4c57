import Synchronization

/// Whether a store's last group of registrations was all new devices. The next group of registrations alone
/// is then expected to be all new too and skips its lookups (`RegistrationBatch.expectsAllNew`): a burst of
/// new devices (a release, a campaign, row 4 of the bench) is written at one round trip a group, while a
/// launch spike of known devices re-registering keeps the lookups their updates need. A wrong guess costs
/// one round trip, after which the group runs the usual way and the guess follows what it found.
final class RecentRegistrations: Sendable {
    private let lastGroupAllNew = Atomic<Bool>(false)

    var expectAllNew: Bool { lastGroupAllNew.load(ordering: .relaxed) }

    func record(allNew: Bool) { lastGroupAllNew.store(allNew, ordering: .relaxed) }
}
