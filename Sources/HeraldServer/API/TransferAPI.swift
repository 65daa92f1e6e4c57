import Foundation
import HeraldHTTP
import HeraldJSON
import HeraldStore

/// Bulk import and export of installations over REST (`InstallationsService.importBatch` and `query`), as
/// JSON lines (one installation object per line, the same shape the API returns) or CSV (one column per
/// field; tags space-separated; properties as JSON text). Export streams page by page; import reads its
/// body as it arrives (the file is never held whole) and commits in batches of the store's
/// `importBatchSize` per transaction. An export imports back unchanged into another app or server.
struct TransferAPI {
    let env: ServiceEnvironment
    let installations: InstallationsService
    static let csvColumns = ["installationId", "deviceToken", "environment", "topic", "tags", "alias", "userId", "locale", "timeZone",
                             "badge", "appVersion", "osVersion", "deviceModel", "properties", "active", "inactiveReason", "inactiveAt"]

    var routes: [Route] {
        [
            Route("POST", "/v1/installations/import", .master, "Import installations from JSON lines, CSV or a LeanCloud _Installation export (?format=jsonl|csv|leancloud); valid lines are stored, invalid ones reported.",
                  maxBodyBytes: env.configuration.importMaxBodyBytes, streamsBody: true, handler: importInstallations),
            Route("GET", "/v1/installations/export", .master, "Export all installations as JSON lines or CSV (?format=jsonl|csv), streamed.", handler: export),
        ]
    }

    /// `leancloud` (LeanCloud's `_Installation` export) is for import only.
    enum Format: String { case jsonl, csv, leancloud }

    func format(_ ctx: RequestContext) throws -> Format {
        if let f = ctx.query("format") {
            guard let format = Format(rawValue: f) else {
                throw APIError(status: 400, code: "invalid_query", message: "format must be jsonl, csv or leancloud.", field: "format")
            }
            return format
        }
        return (ctx.request.headers["content-type"] ?? "").contains("csv") ? .csv : .jsonl
    }

    func importInstallations(_ ctx: RequestContext) async throws -> HTTPResponse {
        let appID = try ctx.appID
        let format = try format(ctx)
        var errors: [JSON] = []
        var failed = 0, created = 0, updated = 0, skipped = 0
        let batchSize = env.store.importBatchSize
        var batch: [InstallationDraft] = []
        var keptIDs: [String?] = []
        func reject(_ line: Int, _ message: String, field: String? = nil, record: Int? = nil) {
            failed += 1
            guard errors.count < 100 else { return }
            var error: [String: JSON] = ["line": .int(line), "field": .optional(field), "message": .string(message)]
            if let record { error["record"] = .int(record) }
            errors.append(.object(error))
        }
        // One batch is stored while the next is parsed and prepared (the store's writer and the parser each have
        // a core); batches still go in one after the other, in the file's order, and at most two are held.
        var storing: Task<(created: Int, updated: Int), Error>?
        func stored() async throws {
            guard let task = storing else { return }
            storing = nil
            let result = try await task.value
            created += result.created
            updated += result.updated
        }
        func flush() async throws {
            guard !batch.isEmpty else { return }
            let (drafts, kept) = (batch, keptIDs)
            // A batch whose installations all get new ids is prepared (its rows encoded) before the previous
            // batch is done; ids to keep (a LeanCloud export's) are checked against the store after it.
            let prepared = kept.isEmpty ? try installations.prepareImport(appID: appID, drafts) : nil
            try await stored()
            storing = Task { [installations] in
                if let prepared { return try await installations.importBatch(prepared) }
                return try await installations.importBatch(appID: appID, drafts, keepingIDs: kept)
            }
            batch.removeAll(keepingCapacity: true)
            keptIDs.removeAll(keepingCapacity: true)
        }
        func add(_ line: Int, _ object: [String: JSON]) {
            do {
                var draft = try InstallationInput.parse(BodyReader(object))
                draft.inactive = try Self.inactive(object)
                guard draft.installationID != nil || draft.deviceToken != nil else { throw ServiceError.missing("installationId") }
                try InstallationsService.checkText(draft)
                batch.append(draft)
            } catch let e as ServiceError { reject(line, e.message, field: e.field) } catch { reject(line, "\(error)") }
        }

        /// A LeanCloud export's row: errors name LeanCloud's columns and the row's place in the file.
        func takeLeanCloud(_ record: JSONObjectSplitter.Record) {
            if let problem = record.problem { return reject(record.line, problem, record: record.index) }
            if record.truncated {
                return reject(record.line, "the object is longer than \(Self.maxLineBytes) bytes; one installation is far smaller", record: record.index)
            }
            let value: JSON
            do { value = try JSON(parsing: record.bytes) } catch { return reject(record.line, "invalid JSON: \(error)", record: record.index) }
            guard let object = value.objectValue else { return reject(record.line, "the row is not a JSON object", record: record.index) }
            do {
                switch try Self.leanCloudRow(object) {
                case .skipped: skipped += 1
                case let .installation(objectID, draft):
                    try InstallationsService.checkText(draft)
                    batch.append(draft)
                    keptIDs.append(objectID)
                }
            } catch let e as ServiceError {
                reject(record.line, e.message, field: Self.leanCloudColumn(e.field), record: record.index)
            } catch {
                reject(record.line, "\(error)", record: record.index)
            }
        }

        var csvHeader: [String]?
        func take(_ record: RecordSplitter.Record) throws {
            if record.bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) && !record.truncated { return }
            if record.truncated {
                return reject(record.line, "the line is longer than \(Self.maxLineBytes) bytes; one installation is far smaller")
            }
            switch format {
            case .jsonl, .leancloud:   // leancloud rows go to takeLeanCloud
                let value: JSON
                do { value = try JSON(parsing: record.bytes) } catch { return reject(record.line, "invalid JSON: \(error)") }
                guard let object = value.objectValue else { return reject(record.line, "line is not a JSON object") }
                add(record.line, object)
            case .csv:
                var reader = CSV.Reader(record.bytes)
                guard let fields = reader.next()?.fields else { return }
                guard let header = csvHeader else {
                    guard fields.contains("installationId") || fields.contains("deviceToken") else {
                        throw APIError(status: 422, code: "invalid_csv", message: "The first CSV line must be a header naming installationId and/or deviceToken; columns: \(Self.csvColumns.joined(separator: ",")).")
                    }
                    csvHeader = fields
                    return
                }
                add(record.line, Self.csvObject(header: header, fields: fields))
            }
        }

        let body = ctx.request.bodyStream ?? HTTPBodyStream(ctx.request.body)
        var splitter = RecordSplitter(quoteAware: format == .csv, maxRecordBytes: Self.maxLineBytes)
        var objects = JSONObjectSplitter(maxRecordBytes: Self.maxLineBytes)
        do {
            while let piece = try await body.next() {
                if format == .leancloud {
                    for record in objects.push(piece) {
                        takeLeanCloud(record)
                        if batch.count >= batchSize { try await flush() }
                    }
                    continue
                }
                for record in splitter.push(piece) {
                    try take(record)
                    if batch.count >= batchSize { try await flush() }
                }
            }
        } catch let error as HTTPBodyError {
            try? await stored()
            guard created + updated > 0 else { throw error }
            try await installations.importFinished(written: created + updated)
            // Batches before the break are committed: say so, so the caller resumes rather than guesses.
            let status = switch error {
            case .timedOut: 408
            case .tooLarge: 413
            case .malformed, .connectionClosed: 400
            }
            throw APIError(status: status, code: "import_interrupted",
                           message: "The body broke off (\(error)) after \(created) installations were created and \(updated) updated; those are stored. Send the rest again: an import is an upsert, so lines sent twice do no harm.")
        }
        if format == .leancloud {
            for record in objects.finish() { takeLeanCloud(record) }
        } else if let last = splitter.finish() {
            try take(last)
        }
        if format == .csv && csvHeader == nil {
            throw APIError(status: 422, code: "invalid_csv", message: "The CSV is empty; its first line must be a header naming installationId and/or deviceToken.")
        }
        try await flush()
        try await stored()
        try await installations.importFinished(written: created + updated)
        var summary: [String: JSON] = ["created": .int(created), "updated": .int(updated), "failed": .int(failed), "errors": .array(errors)]
        if format == .leancloud { summary["skipped"] = .int(skipped) }
        return .json(200, .object(summary))
    }

    func export(_ ctx: RequestContext) async throws -> HTTPResponse {
        let appID = try ctx.appID
        let format = try format(ctx)
        guard format != .leancloud else {
            throw APIError(status: 400, code: "invalid_query", message: "format=leancloud is for import only; export as jsonl or csv.", field: "format")
        }
        let cursor = ExportCursor(installations: installations, appID: appID, format: format)
        // Pulled a page at a time as the connection sends: the client's pace sets the reading pace, and no
        // page can be dropped or pile up.
        let stream = AsyncStream<[UInt8]>(unfolding: { await cursor.next() })
        let type = format == .csv ? "text/csv; charset=utf-8" : "application/x-ndjson"
        return HTTPResponse(status: 200, headers: ["content-type": type, "content-disposition": "attachment; filename=\"installations.\(format.rawValue)\""],
                            stream: stream)
    }

    /// The pages of an export, read as they are sent.
    private actor ExportCursor {
        let installations: InstallationsService
        let appID: String
        let format: Format
        private var after: Int64 = 0
        private var headerSent = false
        private var done = false

        init(installations: InstallationsService, appID: String, format: Format) {
            self.installations = installations
            self.appID = appID
            self.format = format
        }

        func next() async -> [UInt8]? {
            if format == .csv && !headerSent {
                headerSent = true
                return Array(CSV.line(TransferAPI.csvColumns).utf8)
            }
            while !done {
                // A failed read ends the body: the status line is gone already, so the client sees a short export.
                guard let page = try? await installations.query(appID: appID, InstallationQuery(afterSeq: after, limit: 1_000)) else { break }
                if let next = page.next { after = next } else { done = true }
                // One buffer per page: each installation is written into it, not into a buffer of its own.
                var chunk = JSONWriter(capacity: page.items.count * 768)
                for r in page.items {
                    switch format {
                    case .jsonl, .leancloud:   // leancloud: refused before
                        InstallationInput.write(r, to: &chunk)
                        chunk.writeRaw(UInt8(ascii: "\n"))
                    case .csv: chunk.bytes += CSV.line(TransferAPI.csvRow(r)).utf8
                    }
                }
                if !chunk.bytes.isEmpty { return chunk.bytes }
            }
            done = true
            return nil
        }
    }

    /// The longest line an import accepts; a longer one is reported and skipped, never held whole.
    static let maxLineBytes = 1 << 20

    static func csvObject(header: [String], fields: [String]) -> [String: JSON] {
        var object: [String: JSON] = [:]
        for (name, value) in zip(header, fields) where !value.isEmpty {
            switch name {
            case "tags": object[name] = .array(value.split(separator: " ").map { .string(String($0)) })
            case "badge": object[name] = Int(value).map(JSON.int) ?? .string(value)
            case "properties": object[name] = (try? JSON(parsing: value)) ?? .string(value)
            default: object[name] = .string(value)
            }
        }
        return object
    }

    static func csvRow(_ r: InstallationRecord) -> [String] {
        [r.installationID, r.deviceToken ?? "", r.environment, r.topic ?? "", r.tags.joined(separator: " "), r.alias ?? "", r.userID ?? "",
         r.locale ?? "", r.timeZone ?? "", String(r.badge), r.appVersion ?? "", r.osVersion ?? "", r.deviceModel ?? "",
         r.properties == "{}" ? "" : r.properties, r.active ? "true" : "false", r.inactiveReason ?? "",
         r.inactiveAt.map(ISO8601.string) ?? ""]
    }

    /// An exported inactive row (`active` false in JSON, "false" in CSV) imports inactive with its reason and
    /// time; a retired token must not start getting pushes again because it moved to another server.
    static func inactive(_ object: [String: JSON]) throws -> InstallationDraft.Inactive? {
        switch object["active"] {
        case nil, .null?, .bool(true)?, .string("true")?: return nil
        case .bool(false)?, .string("false")?: break
        default: throw ServiceError.invalid("active", "active must be true or false.")
        }
        var at: Date?
        if let value = object["inactiveAt"], !value.isNull {
            guard let text = value.stringValue, let date = ISO8601.parse(text) else {
                throw ServiceError.invalid("inactiveAt", "inactiveAt must be an ISO 8601 time such as 2026-05-01T08:00:00.000Z.")
            }
            at = date
        }
        let reason = object["inactiveReason"]?.stringValue
        if let reason, reason.utf8.count > 64 { throw ServiceError.invalid("inactiveReason", "inactiveReason must be at most 64 bytes.") }
        return InstallationDraft.Inactive(reason: reason, at: at)
    }
}
