import Foundation
import HeraldStore

/// ISO 8601 timestamps in UTC with milliseconds (`2026-05-01T08:00:00.000Z`); parsing accepts them with or
/// without fractional seconds and with any offset.
enum ISO8601 {
    static func string(_ date: Date) -> String { EventValue.iso8601(date) }

    static func json(_ date: Date?) -> JSON { date.map { .string(string($0)) } ?? .null }

    static func parse(_ text: String) -> Date? {
        let withFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        if let d = try? withFraction.parse(text) { return d }
        return try? Date.ISO8601FormatStyle().parse(text)
    }
}
