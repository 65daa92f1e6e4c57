import Foundation
import Testing
@testable import HeraldCLI
import HeraldServer

/// The keys' table is the one source for parsing, `--help`, `--print-config` and docs/server.md; these hold the
/// last two to it, since nothing else would notice them drift.
@Suite struct ConfigurationTableTests {
    /// `key -> default` from every `| \`a.b\` | default | meaning |` row of docs/server.md, backticks dropped.
    func documentedDefaults() throws -> [String: String] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/server.md"), encoding: .utf8)
        var out: [String: String] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4, cells[1].wholeMatch(of: /`[a-z]+\.[A-Za-z]+`/) != nil else { continue }
            out[cells[1].replacingOccurrences(of: "`", with: "")] = cells[2].replacingOccurrences(of: "`", with: "")
        }
        return out
    }

    @Test func docsListEveryKeyWithItsDefaultAndNoOther() throws {
        let documented = try documentedDefaults()
        for row in ServeCommand.table {
            #expect(documented[row.key] == row.defaultText, "docs/server.md: \(row.key)")
        }
        #expect(Set(documented.keys).subtracting(ServeCommand.knownKeys).isEmpty, "keys documented but not in the table")
    }

    @Test func keysAreUnique() {
        #expect(Set(ServeCommand.knownKeys).count == ServeCommand.table.count)
    }

    /// A default written as a number or a boolean must be the value actually in effect by default.
    @Test func writtenDefaultsAreTheDefaultsInEffect() throws {
        let settings = try ServeSettings([:])
        for row in ServeCommand.table {
            guard let written = row.defaultText.split(separator: " ").first.map(String.init),
                  Double(written) != nil || Bool(written) != nil else { continue }
            #expect(row.shown(in: settings).split(separator: " ").first.map(String.init) == written, "\(row.key)")
        }
    }

    @Test func helpListsEveryKeyWithItsHelpAndDefault() {
        let help = ServeCommand.helpText()
        for row in ServeCommand.table {
            #expect(help.contains("--\(ConfigurationSources.flagName(row.key)) <value>"), "\(row.key)")
            #expect(help.contains("\(row.key): \(row.help) (default: \(row.defaultText))"), "\(row.key)")
        }
    }
}
