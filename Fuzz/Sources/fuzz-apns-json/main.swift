import APNSCore
import FuzzDriver

/// APNSCore's JSON parser (payloads, simulator): what parses must write back as JSON that parses to
/// an equal value, and writing that again must give the same bytes.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    // The parser reads libFuzzer's buffer in place: it is allocated to the exact size, so
    // AddressSanitizer catches a read one byte past the end (an Array's spare capacity would not).
    let input = UnsafeBufferPointer(start: data, count: size)
    let value: JSONValue
    do {
        value = try JSONValue(parsing: input)
    } catch {
        precondition((0...size).contains(error.offset), "error offset \(error.offset) outside a \(size)-byte input")
        return 0
    }
    let written = value.jsonBytes()
    let text = String(decoding: written, as: UTF8.self)
    let reparsed: JSONValue
    do {
        reparsed = try JSONValue(parsing: written)
    } catch {
        preconditionFailure("\(value) was written as \(text), which does not parse: \(error)")
    }
    precondition(reparsed == value, "\(value) was written as \(text), which parses to \(reparsed)")
    precondition(reparsed.jsonBytes() == written, "\(text) is written differently the second time")
    return 0
}

runLibFuzzer(testOneInput)
