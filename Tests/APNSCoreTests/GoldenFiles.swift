import Foundation

/// Reads the golden files copied into the test bundle (see Golden/README.md).
enum GoldenFiles {
    static let directory: URL = {
        guard let url = Bundle.module.url(forResource: "Golden", withExtension: nil) else {
            fatalError("Golden resource directory missing from the test bundle")
        }
        return url
    }()

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    static func source(_ name: String) throws -> [UInt8] {
        try bytes("\(name).source.json")
    }

    static func canonical(_ name: String) throws -> [UInt8] {
        try bytes("\(name).canonical.json")
    }

    /// Decodes a hex text file to bytes.
    static func hex(_ name: String) throws -> [UInt8] {
        let text = String(decoding: try bytes(name), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        var result: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            result.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return result
    }
}
