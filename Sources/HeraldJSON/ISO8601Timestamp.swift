/// UTC times as Herald's JSON writes them (`2026-05-01T08:00:00.000Z`), from milliseconds since 1970.
///
/// Written from the day count straight into 24 bytes: through `gmtime_r` with a string per field, or
/// Foundation's format styles, a time cost ~10k instructions or more, and a registration's answer carries
/// three, a device stream's notification event two.
public enum ISO8601Timestamp {
    /// The time with milliseconds; nil outside the years 0-9999, which 24 bytes cannot hold (callers
    /// write those their own way).
    public static func utc(millisecondsSince1970 ms: Int64) -> String? {
        let seconds = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let (year, month, day) = civil(days: days)
        guard (0...9999).contains(year) else { return nil }
        let second = Int(seconds - days * 86_400)
        // Digits written in place, with no array of fields: a `[(Int, Int)]` per call cost a metadata lookup
        // and two allocations, more than the digits (three timestamps answer every registration).
        return String(unsafeUninitializedCapacity: 24) { out in
            var i = 0
            func put(_ value: Int, _ width: Int, _ separator: UInt8) {
                var v = value
                for k in stride(from: width - 1, through: 0, by: -1) {
                    out[i + k] = UInt8(ascii: "0") + UInt8(v % 10)
                    v /= 10
                }
                out[i + width] = separator
                i += width + 1
            }
            put(year, 4, UInt8(ascii: "-"))
            put(month, 2, UInt8(ascii: "-"))
            put(day, 2, UInt8(ascii: "T"))
            put(second / 3600, 2, UInt8(ascii: ":"))
            put(second / 60 % 60, 2, UInt8(ascii: ":"))
            put(second % 60, 2, UInt8(ascii: "."))
            put(Int(ms - seconds * 1000), 3, UInt8(ascii: "Z"))
            return i
        }
    }

    /// The proleptic Gregorian date of a day count since 1970-01-01 (H. Hinnant's `civil_from_days`).
    static func civil(days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shifted = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shifted + 2) / 5 + 1
        let month = shifted < 10 ? shifted + 3 : shifted - 9
        return (Int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0)), Int(month), Int(day))
    }
}
