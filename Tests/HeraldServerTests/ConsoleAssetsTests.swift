import Foundation
import Testing
@testable import HeraldServer
import HeraldTestSupport

/// The console compiled into the binary is exactly `Console/`: the generated file cannot drift from the
/// sources (run scripts/console-assets.py after changing them).
@Suite struct ConsoleAssetsTests {
    static let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Console").standardized

    @Test func generatedAssetsMatchTheConsoleSources() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.source.path).filter { !$0.hasPrefix(".") }.sorted()
        #expect(names == ConsoleAssets.files.keys.sorted(), "run scripts/console-assets.py")
        for name in names {
            let bytes = try [UInt8](Data(contentsOf: Self.source.appendingPathComponent(name)))
            let file = try #require(ConsoleAssets.files[name])
            #expect(file.bytes == bytes, "\(name) changed since scripts/console-assets.py ran")
            #expect(try gunzip(file.gzip) == bytes, "\(name): its gzip is not its bytes")
        }
    }

    @Test func firstLoadStaysUnder200KilobytesCompressed() {
        let total = ConsoleAssets.files.values.reduce(0) { $0 + $1.gzip.count }
        #expect(total < 200_000, "\(total) bytes")
    }

    func gunzip(_ data: [UInt8]) throws -> [UInt8] {
        let child = try ChildProcess("/bin/gzip", ["-dc"], input: data)
        _ = child.waitForExit()
        return child.output
    }
}
