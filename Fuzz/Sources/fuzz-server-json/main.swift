import FuzzDriver
import HeraldServer

/// The REST API's JSON (request bodies in, responses out): what parses must encode to JSON that
/// parses to an equal value, and encoding that again must give the same text.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let value: JSON
    do {
        value = try JSON(parsing: input)
    } catch {
        // Typed throws: a JSONParseError, nothing else, can come out.
        precondition((0...size).contains(error.offset), "error offset \(error.offset) outside a \(size)-byte input")
        return 0
    }
    let text = value.encoded
    let reparsed: JSON
    do {
        reparsed = try JSON(parsing: text)
    } catch {
        preconditionFailure("\(value) was encoded as \(text), which does not parse: \(error)")
    }
    precondition(reparsed == value, "\(value) was encoded as \(text), which parses to \(reparsed)")
    precondition(reparsed.encoded == text, "\(text) is encoded differently the second time")
    return 0
}

runLibFuzzer(testOneInput)
