import Foundation
import Testing
@testable import HeraldServer

/// A reader scans a small object and looks a large one up: both answer alike, absent and null included,
/// and an unknown field is named the same whichever order the body had.
@Suite struct BodyReaderTests {
    static func object(fields: Int) -> [String: JSON] {
        var o: [String: JSON] = ["name": "herald", "count": 3, "cleared": .null]
        for i in 0..<fields - 3 { o["extra\(i)"] = .string("v\(i)") }
        return o
    }

    @Test(arguments: [3, 8, 9, 40]) func fieldsReadTheSameFromSmallAndLargeObjects(fields: Int) throws {
        let body = BodyReader(Self.object(fields: fields))
        #expect(try body.string("name") == "herald")
        #expect(try body.int("count", range: 0...10) == 3)
        #expect(try body.nullableString("cleared") == .some(nil))
        #expect(try body.nullableString("missing") == nil)
        #expect(body.has("cleared") && !body.has("missing") && !body.has("nam") && !body.has("names"))
        if fields > 3 { #expect(try body.string("extra\(fields - 4)") == "v\(fields - 4)") }
        #expect(throws: ServiceError.self) { try body.string("count") }
    }

    @Test(arguments: [3, 40]) func theFirstUnknownFieldInNameOrderIsNamed(fields: Int) {
        var object = Self.object(fields: fields)
        object["zeta"] = 1
        object["alpha"] = 1
        let allowed = Set(Self.object(fields: fields).keys)
        do {
            try BodyReader(object).rejectUnknown(allowed)
            Issue.record("unknown fields were accepted")
        } catch let error as ServiceError {
            #expect(error.field == "alpha" && error.code == "unknown_field")
        } catch {
            Issue.record("\(error)")
        }
        #expect(throws: Never.self) { try BodyReader(object).rejectUnknown(allowed, ignoring: ["alpha", "zeta"]) }
    }
}
