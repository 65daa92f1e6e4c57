import Foundation
import Testing
@testable import HeraldStore

/// Times are written from the day count for years 0-9999 (every registration answer has three); they
/// must be exactly what `gmtime_r` gives.
@Suite struct ISO8601WritingTests {
    @Test func theDayCountPathWritesWhatGmtimeWrites() {
        var dates: [Date] = [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: -0.0004), Date(timeIntervalSince1970: -0.0006),
                             Date(timeIntervalSince1970: 951_782_400), Date(timeIntervalSince1970: 4_107_542_399.9996),
                             Date(timeIntervalSince1970: 253_402_300_799.999), Date(timeIntervalSince1970: -62_167_219_200)]
        // Every day boundary and leap rule: 1 Jan 1600 to 2500 in steps of a day and a bit (odd seconds and milliseconds).
        var t = -11_676_096_000.0
        while t < 16_725_225_600 {
            dates.append(Date(timeIntervalSince1970: t))
            t += 86_400 * 37 + 3_661.123
        }
        for date in dates {
            let ms = Int64((date.timeIntervalSince1970 * 1000).rounded())
            let seconds = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
            #expect(EventValue.iso8601(date) == EventValue.iso8601Padded(ms: ms, seconds: seconds), "\(date.timeIntervalSince1970)")
        }
        #expect(EventValue.iso8601(Date(timeIntervalSince1970: 1_800_000_000.25)) == "2027-01-15T08:00:00.250Z")
    }
}
