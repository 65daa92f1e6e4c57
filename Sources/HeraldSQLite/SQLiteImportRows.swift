import Foundation
import HeraldStore

/// An import batch encoded ahead of its transaction (`SQLiteStore.prepareImport`): every draft's
/// installation row as if the draft were new and its tag rows, as statement parameters in one arena
/// (bound in place, not copied); which drafts are the batch's first with their installation id and token;
/// and the batch's installation ids and tokens as the JSON arrays of the existence checks. Building the
/// records and their parameters was a sixth of the writer's time per row; ahead, it runs on the importer's
/// core while the previous batch is written, and SQLite's single writer does little but SQLite's work.
struct SQLiteImportRows: Sendable {
    private(set) var arena: SQLiteBindArena
    /// Draft i's installation parameters are `arena.values[rowStarts[i]..<rowStarts[i] + width]`.
    private(set) var rowStarts: [Int] = []
    static let width = SQLiteStore.mutableColumns.count + 3
    /// Where each tag row's two parameters (app, tag) start in `arena.values`; draft i's tag rows are
    /// `tagStarts[firstTag[i]..<firstTag[i + 1]]`.
    private(set) var tagStarts: [Int] = []
    private(set) var firstTag: [Int] = [0]
    /// Whether draft i is the batch's first with its installation id and the first with its token: only
    /// such a draft can be new (a later one updates what the first wrote), if the store holds neither.
    let firstOfBatch: [Bool]
    let installationIDs: SQLValue
    let tokens: SQLValue

    init(_ batch: PreparedImport) {
        self.init(appID: batch.appID, drafts: batch.drafts, newIDs: batch.newIDs, now: batch.now)
    }

    init(appID: String, drafts: [InstallationDraft], newIDs: [String], now: Date) {
        installationIDs = jsonArray(drafts.compactMap(\.installationID))
        tokens = jsonArray(drafts.compactMap(\.deviceToken))
        // Sized from the batch, so the buffers do not grow by doubling (and leave large freed blocks behind):
        // a row's texts, then each tag row's app id and tag.
        let tagRows = drafts.reduce(0) { $0 + ($1.tags?.count ?? 0) }
        let textBytes = zip(drafts, newIDs).reduce(0) { sum, pair in
            let (d, id) = pair
            return sum + 2 * id.utf8.count + (d.installationID?.utf8.count ?? 0) + (d.deviceToken?.utf8.count ?? 0)
                + (d.properties?.utf8.count ?? 2) + (d.tags ?? []).reduce(0) { $0 + $1.utf8.count + 1 } + 64
        }
        arena = SQLiteBindArena(reservingBytes: textBytes + tagRows * (appID.utf8.count + 1) + drafts.count * (appID.utf8.count + 1),
                                values: drafts.count * Self.width + tagRows * 2)
        firstOfBatch = drafts.firstOfBatch
        rowStarts.reserveCapacity(drafts.count)
        for (draft, newID) in zip(drafts, newIDs) {
            var r = InstallationRecord.new(appID: appID, installationID: draft.installationID ?? newID, id: newID,
                                           createdAt: draft.createdAt, now: now)
            r.apply(draft, now: now)
            rowStarts.append(arena.values.count)
            for value in SQLiteStore.insertValues(r) { arena.append(value) }
            let tags = draft.tags ?? []
            for tag in tags.count < 2 ? tags : Array(Set(tags)) {
                tagStarts.append(arena.values.count)
                arena.append(text: appID)
                arena.append(text: tag)
            }
            firstTag.append(tagStarts.count)
        }
    }

    /// Inserts draft i as a new installation with its tags, in the caller's transaction.
    func insert(_ i: Int, _ db: SQLiteConnection) throws {
        try db.execute(SQLiteStore.insertInstallation, arena: arena, values: rowStarts[i]..<rowStarts[i] + Self.width)
        let seq = db.lastInsertRowID
        for start in tagStarts[firstTag[i]..<firstTag[i + 1]] {
            try db.execute(Self.insertTag, arena: arena, values: start..<start + 2, trailing: seq)
        }
    }

    static let insertTag = "INSERT INTO installation_tags (app_id, tag, seq) VALUES (?, ?, ?)"
}
