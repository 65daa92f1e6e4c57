import Foundation
import Testing

@testable import APNSCore
import HeraldJSON

struct JSONWriterTests {
    @Test func escapesQuotesBackslashesAndControlCharacters() {
        let value: JSONValue = .string("say \"hi\"\\ \n\t\r\u{08}\u{0C}\u{01}\u{1F}")
        #expect(value.description == #""say \"hi\"\\ \n\t\r\b\f\u0001\u001f""#)
    }

    @Test func writesNonASCIIAsUTF8AndLeavesSlashesAlone() {
        let value: JSONValue = ["url": "http://t.imooc.com/a", "text": "推送 🚀 é"]
        let bytes = value.jsonBytes()
        #expect(bytes == Array(#"{"url":"http://t.imooc.com/a","text":"推送 🚀 é"}"#.utf8))
    }

    @Test func keepsIntegersAndDoublesDistinct() {
        let value: JSONValue = [1, 1.0, 0.5, -7, 25.0, 1e-5, .int(Int.min), .int(Int.max)]
        #expect(value.description == "[1,1.0,0.5,-7,25.0,1e-05,-9223372036854775808,9223372036854775807]")
    }

    @Test func writesNonFiniteDoublesAsNull() {
        let value: JSONValue = [.double(.nan), .double(.infinity)]
        #expect(value.description == "[null,null]")
    }

    @Test func keepsObjectMembersInInsertionOrder() {
        var object: JSONObject = ["z": 1, "a": 2]
        object["m"] = 3
        object["z"] = 4  // replaced in place
        object["a"] = nil  // removed
        #expect(JSONValue.object(object).description == #"{"z":4,"m":3}"#)
    }

    @Test func writeJSONAppendsToAnExistingBuffer() {
        var buffer = Array("prefix:".utf8)
        JSONValue.array([true, false, nil]).writeJSON(into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == "prefix:[true,false,null]")
    }
}

struct JSONParserTests {
    @Test func parsesEveryKindAndKeepsMemberOrder() throws {
        let value = try JSONValue(parsing: #" {"b": [1, -2.5, 3e2, true, false, null], "a": {"x": "y"}, "c": ""} "#)
        let object = try #require(value.objectValue)
        #expect(object.keys == ["b", "a", "c"])
        #expect(value["b"] == [1, -2.5, 300.0, true, false, nil])
        #expect(value["a"]?["x"] == "y")
        #expect(value["c"] == "")
    }

    @Test func decodesEscapesIncludingSurrogatePairs() throws {
        let value = try JSONValue(parsing: #""\u6211 \ud83d\ude80 \/ \" \\ \n \u00e9""#)
        #expect(value == .string("我 🚀 / \" \\ \n é"))
    }

    @Test func integersTooLargeForIntBecomeDoubles() throws {
        #expect(try JSONValue(parsing: "9223372036854775807") == .int(Int.max))
        #expect(try JSONValue(parsing: "-9223372036854775808") == .int(Int.min))
        #expect(try JSONValue(parsing: "9223372036854775808") == .double(9_223_372_036_854_775_808))
    }

    @Test func repeatedKeyKeepsFirstPositionAndLastValue() throws {
        let value = try JSONValue(parsing: #"{"a":1,"b":2,"a":3}"#)
        #expect(value.objectValue?.keys == ["a", "b"])
        #expect(value["a"] == 3)
    }

    @Test(arguments: [
        (#"{"a":1"#, "byte 6", "expected ',' or '}'"),
        (#"{"a" 1}"#, "byte 5", "expected ':' after key \"a\""),
        (#"{a:1}"#, "byte 1", "expected a string key"),
        ("[1,]", "byte 3", "unexpected ']', expected a value"),
        ("01", "byte 1", "leading zero"),
        ("1.", "byte 2", "expected a digit after '.'"),
        ("-", "byte 1", "expected a digit after '-'"),
        ("1e", "byte 2", "expected a digit in the exponent"),
        ("1e999", "byte 0", "number out of range"),
        ("[-1.5E+400]", "byte 1", "number out of range"),
        (String(repeating: "9", count: 400), "byte 0", "number out of range"),
        ("tru", "byte 0", "invalid literal, expected true"),
        (#""abc"#, "byte 0", "unterminated string"),
        ("\"a\u{01}\"", "byte 2", "unescaped control character"),
        (#""\x""#, "byte 2", "invalid escape \\x"),
        (#""\ud83d""#, "byte 7", "unpaired UTF-16 surrogate \\uD83D"),
        (#""\u12G4""#, "byte 5", "invalid hex digit 'G'"),
        ("{} {}", "byte 3", "after the end of the JSON value"),
        ("", "byte 0", "unexpected end of input"),
    ])
    func rejectsMalformedInputNamingPositionAndProblem(input: String, position: String, problem: String) {
        #expect {
            _ = try JSONValue(parsing: input)
        } throws: { error in
            let message = (error as? JSONParseError)?.description ?? ""
            return message.contains(position) && message.contains(problem)
        }
    }

    @Test func rejectsInvalidUTF8() {
        #expect(throws: JSONParseError.self) {
            _ = try JSONValue(parsing: [0x22, 0xC3, 0x28, 0x22])
        }
    }

    @Test func limitsNestingDepth() throws {
        let fine = String(repeating: "[", count: JSONParser.maximumDepth) + String(repeating: "]", count: JSONParser.maximumDepth)
        _ = try JSONValue(parsing: fine)
        let tooDeep = String(repeating: "[", count: JSONParser.maximumDepth + 1)
        #expect {
            _ = try JSONValue(parsing: tooDeep)
        } throws: { error in
            (error as? JSONParseError)?.problem.contains("nesting deeper than \(JSONParser.maximumDepth)") == true
        }
    }

    @Test func optionsTightenDepthAndRefuseRepeatedKeys() throws {
        let strict = JSONParsingOptions(maximumDepth: 3, rejectsDuplicateKeys: true)
        _ = try JSONValue(parsing: "[[[1]]]", options: strict)
        #expect(throws: JSONParseError.self) { _ = try JSONValue(parsing: "[[[[1]]]]", options: strict) }
        // By default a repeated key keeps its last value; strictly, it is refused, in small and large objects.
        #expect(try JSONValue(parsing: #"{"a":1,"a":2}"#)["a"] == 2)
        #expect {
            _ = try JSONValue(parsing: #"{"a":1,"a":2}"#, options: strict)
        } throws: { error in
            (error as? JSONParseError)?.problem.contains("\"a\" appears twice") == true
        }
        let large = "{" + (0..<40).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + ",\"k7\":0}"
        _ = try JSONValue(parsing: large)
        #expect(throws: JSONParseError.self) { _ = try JSONValue(parsing: large, options: strict) }
    }

    @Test func roundTripsThroughWriterAndParser() throws {
        let value: JSONValue = [
            "s": "line\nbreak \"q\" 推", "i": -12, "d": 0.1, "a": [[], [:], nil], "o": ["nested": ["deep": true]],
        ]
        let reparsed = try JSONValue(parsing: value.jsonBytes())
        #expect(reparsed == value)
        #expect(reparsed.jsonBytes() == value.jsonBytes())
    }

    @Test func objectEqualityIgnoresMemberOrderButNumbersKeepTheirKind() throws {
        #expect(try JSONValue(parsing: #"{"a":1,"b":2}"#) == JSONValue(parsing: #"{"b":2,"a":1}"#))
        #expect(try JSONValue(parsing: "1") != JSONValue(parsing: "1.0"))
        #expect(JSONValue.double(3).intValue == 3)
        #expect(JSONValue.double(3.5).intValue == nil)
    }
}

struct JSONCodableTests {
    struct Envelope: Codable, Equatable {
        var name: String
        var data: JSONValue
    }

    @Test func embedsInCodableTypes() throws {
        let envelope = Envelope(name: "n", data: ["list": [1, 2.5, "x", true, nil], "nested": ["k": "v"]])
        let encoded = try JSONEncoder().encode(envelope)
        let decoded = try JSONDecoder().decode(Envelope.self, from: encoded)
        #expect(decoded == envelope)
        #expect(decoded.data["list"]?.arrayValue?[0] == .int(1))
        #expect(decoded.data["list"]?.arrayValue?[1] == .double(2.5))
    }

    @Test func payloadJSONValueMatchesItsBytes() throws {
        let payload = APNSPayload(aps: APNSAps(alert: "hi", badge: 2), custom: ["k": [1, 2]])
        #expect(payload.jsonValue == ["aps": ["alert": "hi", "badge": 2], "k": [1, 2]])
        #expect(payload.jsonValue.jsonBytes() == payload.jsonBytes())
    }
}

struct JSONLargeObjectTests {
    @Test func largeObjectsKeepOrderAndResolveRepeatedKeys() throws {
        let members = (0..<200).map { "\"k\($0)\":\($0)" } + ["\"k3\":-3", "\"k150\":-150"]
        let value = try JSONValue(parsing: "{" + members.joined(separator: ",") + "}")
        let object = try #require(value.objectValue)
        #expect(object.count == 200)
        #expect(object.keys.first == "k0" && object.keys.last == "k199")
        #expect(object["k3"] == -3)
        #expect(object["k150"] == -150)
        #expect(object["k4"] == 4)
    }
}
