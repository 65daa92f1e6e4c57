import Testing
@testable import HeraldServer

/// Imports arrive in pieces that cut lines anywhere; records must come out as if the file were read whole.
@Suite struct RecordSplitterTests {
    func split(_ text: String, quoteAware: Bool, pieceSize: Int, max: Int = 1 << 20) -> [RecordSplitter.Record] {
        var splitter = RecordSplitter(quoteAware: quoteAware, maxRecordBytes: max)
        let bytes = Array(text.utf8)
        var records: [RecordSplitter.Record] = []
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + pieceSize)
            records += splitter.push(Array(bytes[start..<end]))
            start = end
        }
        if let last = splitter.finish() { records.append(last) }
        return records
    }

    @Test(arguments: [1, 2, 5, 1000])
    func aQuotedLineBreakStaysInsideItsCSVRecord(pieceSize: Int) {
        let csv = "installationId,properties\ni1,\"{\"\"note\"\":\"\"two\nlines\"\"}\"\ni2,\n"
        let records = split(csv, quoteAware: true, pieceSize: pieceSize)
        #expect(records.map(\.line) == [1, 2, 4])
        #expect(records.map { String(decoding: $0.bytes, as: UTF8.self) } == ["installationId,properties", "i1,\"{\"\"note\"\":\"\"two\nlines\"\"}\"", "i2,"])
    }

    @Test func jsonLinesSplitAtEveryLineFeedAndTheLastNeedsNone() {
        let records = split("{\"a\":\"x\\\"\"}\n\n{\"b\":1}", quoteAware: false, pieceSize: 3)
        #expect(records.map(\.line) == [1, 2, 3])
        #expect(records.last.map { String(decoding: $0.bytes, as: UTF8.self) } == "{\"b\":1}")
    }

    @Test func anOverlongRecordIsCutAndMarkedNotHeld() {
        let records = split(String(repeating: "x", count: 100) + "\nok\n", quoteAware: false, pieceSize: 7, max: 10)
        #expect(records.count == 2)
        #expect(records[0].truncated && records[0].bytes.count == 10)
        #expect(!records[1].truncated && records[1].line == 2)
    }

    @Test func recordsAfterALongOneDoNotInheritItsBuffer() {
        var splitter = RecordSplitter(quoteAware: false, maxRecordBytes: 1 << 20)
        let records = splitter.push(Array((String(repeating: "x", count: 1 << 20) + "\n" + String(repeating: "{}\n", count: 50)).utf8))
        #expect(records.count == 51)
        #expect(records.dropFirst().allSatisfy { $0.bytes.capacity < 4096 }, "each short record holds a small buffer of its own")
    }
}
