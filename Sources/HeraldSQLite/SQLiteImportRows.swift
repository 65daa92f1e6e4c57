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
    /// Draft i's installation parameters are `arena.values[rowStarts[i]..<rowStarts[i] + width]`; the
    /// drafts' rows follow each other, so those of drafts i..<j are one range.
    private(set) var rowStarts: [Int] = []
    static let width = SQLiteStore.mutableColumns.count + 3
    /// Where each tag row's three parameters (app, tag, the draft's index as `.relative`) start in
    /// `arena.values`, after every installation row; draft i's tag rows are `tagStarts[firstTag[i]..<firstTag[i + 1]]`.
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
                                values: drafts.count * Self.width + tagRows * 3)
        firstOfBatch = drafts.firstOfBatch
        rowStarts.reserveCapacity(drafts.count)
        for (draft, newID) in zip(drafts, newIDs) {
            var r = InstallationRecord.new(appID: appID, installationID: draft.installationID ?? newID, id: newID,
                                           createdAt: draft.createdAt, now: now)
            r.apply(draft, now: now)
            rowStarts.append(arena.values.count)
            SQLiteStore.insertValues(r) { arena.append($0) }
        }
        for (i, draft) in drafts.enumerated() {
            let tags = draft.tags ?? []
            for tag in Self.distinct(tags) {
                tagStarts.append(arena.values.count)
                arena.append(text: appID)
                arena.append(text: tag)
                arena.append(relative: Int64(i))
            }
            firstTag.append(tagStarts.count)
        }
    }

    /// A tag listed twice is one row. Most drafts have a few tags, compared in place; a hashed set only for many.
    private static func distinct(_ tags: [String]) -> [String] {
        if tags.count > 16 { return Array(Set(tags)) }
        return tags.indices.allSatisfy({ i in !tags[..<i].contains(tags[i]) }) ? tags
            : tags.enumerated().filter { i, tag in !tags[..<i].contains(tag) }.map(\.element)
    }

    /// Inserts drafts `range` as new installations with their tags, in the caller's transaction, by
    /// `rowsPerInsert` rows per statement: each statement costs SQLite its own work besides the rows
    /// (opening a cursor on the table and on each of its indexes, reading and writing the table's
    /// AUTOINCREMENT counter), about as much as a row's inserts.
    func insert(_ range: Range<Int>, _ db: SQLiteConnection) throws {
        var next = range.lowerBound
        while next < range.upperBound {
            let n = range.upperBound - next >= Self.rowsPerInsert ? Self.rowsPerInsert : 1
            try db.execute(n == 1 ? SQLiteStore.insertInstallation : Self.insertRows, arena: arena, values: rowStarts[next]..<rowStarts[next] + n * Self.width)
            // A table with AUTOINCREMENT gives the rows of one INSERT consecutive seqs, in order: one writer,
            // each row the largest seq so far plus one.
            let firstSeq = db.lastInsertRowID - Int64(n) + 1
            try insertTags(of: next..<next + n, seqOfFirst: firstSeq, db)
            next += n
        }
    }

    private func insertTags(of drafts: Range<Int>, seqOfFirst firstSeq: Int64, _ db: SQLiteConnection) throws {
        var tag = firstTag[drafts.lowerBound]
        let end = firstTag[drafts.upperBound]
        // A tag row's third parameter is its draft's index: the seq is that plus `base`.
        let base = firstSeq - Int64(drafts.lowerBound)
        while tag < end {
            let n = end - tag >= Self.rowsPerInsert ? Self.rowsPerInsert : 1
            try db.execute(n == 1 ? Self.insertTag : Self.insertTags, arena: arena, values: tagStarts[tag]..<tagStarts[tag] + 3 * n, base: base)
            tag += n
        }
    }

    static let rowsPerInsert = 32
    // A batch's transaction is rolled back whole when a statement fails: no statement journal needed.
    private static let insertRows = SQLiteStore.insertInstallations(rows: rowsPerInsert, verb: "INSERT OR FAIL")
    private static func tagInsert(rows: Int) -> String {
        "INSERT OR FAIL INTO installation_tags (app_id, tag, seq) VALUES " + Array(repeating: "(?, ?, ?)", count: rows).joined(separator: ", ")
    }
    private static let insertTag = tagInsert(rows: 1)
    private static let insertTags = tagInsert(rows: rowsPerInsert)
}
