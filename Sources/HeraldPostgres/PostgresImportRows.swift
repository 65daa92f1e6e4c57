import Foundation
import HeraldStore

/// An import batch encoded ahead of its transaction (`PostgresStore.prepareImport`): every draft's
/// installation row in COPY's text format as if the draft were new, and its tag rows, all without the
/// `seq` that ends each of them (numbered in the transaction, for the drafts that do turn out to be new);
/// and the batch's installation ids and tokens as the array literals of the existence checks. Encoding was
/// a fifth of a batch's time with the database idle; ahead, it overlaps the previous batch's write.
struct PostgresImportRows: Sendable {
    private(set) var installations = PGCopyRows()
    /// Where draft i's installation columns end in `installations.bytes` (they start where draft i-1's end).
    private(set) var installationEnds: [Int] = []
    private(set) var tags = PGCopyRows()
    /// Where each tag row's first columns (app, tag) end in `tags.bytes`.
    private(set) var tagEnds: [Int] = []
    /// Draft i's tag rows are `tagEnds[firstTag[i]..<firstTag[i + 1]]`.
    private(set) var firstTag: [Int] = [0]
    let installationIDs: SQLValue
    let tokens: SQLValue
    /// `[InstallationDraft].firstOfBatch`, ahead of the transaction.
    let firstOfBatch: [Bool]

    init(_ batch: PreparedImport) {
        self.init(appID: batch.appID, drafts: batch.drafts, newIDs: batch.newIDs, now: batch.now)
    }

    init(appID: String, drafts: [InstallationDraft], newIDs: [String], now: Date) {
        installationIDs = PGArray.text(drafts.compactMap(\.installationID))
        tokens = PGArray.text(drafts.compactMap(\.deviceToken))
        firstOfBatch = drafts.firstOfBatch
        installations = PGCopyRows(reservingBytes: drafts.count * 256)
        tags = PGCopyRows(reservingBytes: drafts.count * 40)
        for (draft, newID) in zip(drafts, newIDs) {
            var r = InstallationRecord.new(appID: appID, installationID: draft.installationID ?? newID, id: newID,
                                           createdAt: draft.createdAt, now: now)
            r.apply(draft, now: now)
            installations.text(r.installationID); installations.text(r.deviceToken); installations.text(r.environment)
            installations.text(r.topic); installations.text(r.alias); installations.text(r.userID); installations.text(r.locale)
            installations.text(r.timeZone); installations.int(Int64(r.badge)); installations.text(r.appVersion)
            installations.text(r.osVersion); installations.text(r.deviceModel); installations.text(r.properties)
            installations.bool(r.active); installations.text(r.inactiveReason); installations.double(r.inactiveAt?.timeIntervalSince1970)
            installations.double(r.updatedAt.timeIntervalSince1970); installations.double(r.lastSeenAt.timeIntervalSince1970)
            installations.double(r.tokenUpdatedAt.timeIntervalSince1970); installations.text(r.id); installations.text(r.appID)
            installations.double(r.createdAt.timeIntervalSince1970)
            installationEnds.append(installations.endFirstColumns())
            for tag in Set(draft.tags ?? []) {
                tags.text(r.appID); tags.text(tag)
                tagEnds.append(tags.endFirstColumns())
            }
            firstTag.append(tagEnds.count)
        }
    }

    /// The COPY rows of the drafts at `indices` (ascending), each ended by its `seq` (parallel to `indices`).
    func rows(_ indices: [Int], seqs: [Int64]) -> (installations: PGCopyRows, tags: PGCopyRows) {
        var rows = PGCopyRows(reservingBytes: indices.count * 256)
        var tagRows = PGCopyRows(reservingBytes: indices.count * 48)
        for (i, seq) in zip(indices, seqs) {
            rows.columns(installations.bytes[(i == 0 ? 0 : installationEnds[i - 1])..<installationEnds[i]])
            rows.int(seq)
            rows.endRow()
            for t in firstTag[i]..<firstTag[i + 1] {
                tagRows.columns(tags.bytes[(t == 0 ? 0 : tagEnds[t - 1])..<tagEnds[t]])
                tagRows.int(seq)
                tagRows.endRow()
            }
        }
        return (rows, tagRows)
    }
}
