import Foundation
import HeraldServer

/// Logs for `herald serve`: readable text on a terminal, JSON lines otherwise (for collectors).
/// Secrets never go through here.
struct Log: Sendable {
    enum Format: String, Sendable { case text, json }
    let format: Format

    init(format: Format? = nil) {
        self.format = format ?? (isatty(1) == 1 ? .text : .json)
    }

    func info(_ message: String, _ fields: [String: String] = [:]) { write("info", message, fields) }
    func warning(_ message: String, _ fields: [String: String] = [:]) { write("warning", message, fields) }
    func error(_ message: String, _ fields: [String: String] = [:]) { write("error", message, fields) }

    /// The service's lines at their own level; without it the service's warnings and failed requests
    /// would go nowhere.
    var handler: LogHandler { { level, message in write(level.rawValue, message, [:]) } }

    private func write(_ level: String, _ message: String, _ fields: [String: String]) {
        // A format style, not ISO8601DateFormatter: lines come from several threads, and ICU formatters
        // created concurrently have crashed on Linux.
        let time = Date().formatted(.iso8601)
        switch format {
        case .text:
            let extra = fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            print("\(time) \(level.uppercased()) \(message)" + (extra.isEmpty ? "" : "  \(extra)"))
        case .json:
            var object: [String: String] = fields
            object["time"] = time
            object["level"] = level
            object["message"] = message
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
            print(String(decoding: data, as: UTF8.self))
        }
        fflush(nil)
    }
}
