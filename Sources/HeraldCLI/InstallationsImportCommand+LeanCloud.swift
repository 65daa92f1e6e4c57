import Foundation
import HeraldServer

extension InstallationsImportCommand {
    /// `--format leancloud`: the file is read a megabyte at a time and cut into objects (JSON lines or
    /// `{"results": [...]}`, the server's own splitter); each chunk of `chunkRows` objects goes up as JSON
    /// lines, one object per line, so memory stays flat however large the export. Line numbers in the
    /// report are the file's.
    static func importLeanCloud(path: String, _ args: ParsedArguments, chunkRows: Int) async throws -> Int32 {
        guard let file = FileHandle(forReadingAtPath: path) else { throw UsageError("give a readable file: herald installations import FILE") }
        defer { try? file.close() }
        let size = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
        let api = try ServerAccess.api(args)
        let showProgress = Console.stderrIsTerminal && !args.has("json")
        var splitter = JSONObjectSplitter()
        var body: [UInt8] = []
        /// Where each row of the chunk being built is in the file.
        var places: [(line: Int, index: Int)] = []
        var created = 0, updated = 0, failed = 0, skipped = 0, rows = 0, bytesRead = 0
        var errors: [String] = []
        let started = Date()

        func report(line: Int, index: Int, _ message: String, field: String?) {
            guard errors.count < 20 else { return }
            errors.append("line \(line) (row \(index)): \(message)" + (field.map { " (\($0))" } ?? ""))
        }
        func send() async throws {
            guard !places.isEmpty else { return }
            let reply = try await api.call("POST", "/v1/installations/import?format=leancloud", body: body,
                                           contentType: "application/x-ndjson") as? [String: Any]
            created += reply?["created"] as? Int ?? 0
            updated += reply?["updated"] as? Int ?? 0
            failed += reply?["failed"] as? Int ?? 0
            skipped += reply?["skipped"] as? Int ?? 0
            for e in reply?["errors"] as? [[String: Any]] ?? [] {
                // The chunk has one row per line, so the server's line is the row's place in the chunk.
                let local = (e["line"] as? Int ?? 1) - 1
                let place = places.indices.contains(local) ? places[local] : (line: 0, index: 0)
                report(line: place.line, index: place.index, "\(e["message"] ?? "")", field: e["field"] as? String)
            }
            body.removeAll(keepingCapacity: true)
            places.removeAll(keepingCapacity: true)
        }
        func add(_ record: JSONObjectSplitter.Record) {
            rows += 1
            if let problem = record.problem {
                failed += 1
                return report(line: record.line, index: record.index, problem, field: nil)
            }
            if record.truncated {
                failed += 1
                return report(line: record.line, index: record.index, "the object is longer than \(splitter.maxRecordBytes) bytes; one installation is far smaller", field: nil)
            }
            // A line feed outside a JSON string is whitespace (inside one it would be escaped), so a
            // pretty-printed object becomes one line by turning its line feeds into spaces.
            body += record.bytes.map { $0 == 0x0A ? 0x20 : $0 }
            body.append(0x0A)
            places.append((record.line, record.index))
        }

        while let data = try file.read(upToCount: 1 << 20), !data.isEmpty {
            bytesRead += data.count
            for record in splitter.push([UInt8](data)) {
                add(record)
                if places.count >= chunkRows { try await send() }
            }
            if showProgress {
                let rate = Double(rows) / max(0.001, Date().timeIntervalSince(started))
                let percent = size > 0 ? bytesRead * 100 / size : 100
                FileHandle.standardError.write(Data("\rread \(percent)% of \(path): \(rows) rows (\(Int(rate))/s)".utf8))
            }
        }
        for record in splitter.finish() { add(record) }
        try await send()
        if showProgress { FileHandle.standardError.write(Data("\n".utf8)) }
        let summary: [String: Any] = ["created": created, "updated": updated, "skipped": skipped, "failed": failed, "errors": errors]
        ServerAccess.output(args, summary) { _ in
            (["created \(created), updated \(updated), skipped \(skipped) (not iOS), failed \(failed)"] + errors.map { "  " + $0 }).joined(separator: "\n")
        }
        return failed == 0 ? 0 : 1
    }
}
