import Foundation

/// ISO 8601 timestamps in UTC with milliseconds (`2026-05-01T08:00:00.000Z`); parsing accepts them with or
/// without fractional seconds and with any offset.
enum ISO8601 {
    static func string(_ date: Date) -> String {
        let ms = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let seconds = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
        let millis = ms - seconds * 1000
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                      Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), Int(millis))
    }

    static func json(_ date: Date?) -> JSON { date.map { .string(string($0)) } ?? .null }

    static func parse(_ text: String) -> Date? {
        let withFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        if let d = try? withFraction.parse(text) { return d }
        return try? Date.ISO8601FormatStyle().parse(text)
    }
}
