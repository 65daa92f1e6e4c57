import Foundation
import APNSCore

/// Reads device tokens from --token, --tokens-file and standard input (`-`), one per line.
enum TokenInput {
    static func read(_ args: ParsedArguments, stdin: () -> String = { String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self) }) throws -> [DeviceToken] {
        // (text, where it came from); the origin is spelled out only for an error message.
        var texts: [(String, () -> String)] = args.all("token").map { t in (t, { "--token" }) }
        if let file = args.value("tokens-file") {
            let content: String
            if file == "-" {
                content = stdin()
            } else {
                guard let data = FileManager.default.contents(atPath: file) else { throw UsageError("cannot read the tokens file \(file)") }
                content = String(decoding: data, as: UTF8.self)
            }
            let origin = file == "-" ? "standard input" : file
            // Byte-level split: token lists run to millions of lines.
            for (n, line) in content.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
                guard let first = line.first(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }), first != UInt8(ascii: "#") else { continue }
                texts.append((String(Substring(line)), { "\(origin) line \(n + 1)" }))
            }
        }
        guard !texts.isEmpty else { throw UsageError("no device token: give --token T (repeatable) or --tokens-file F (- for standard input)") }
        return try texts.map { text, origin in
            do {
                return try DeviceToken(pasted: text)
            } catch {
                throw UsageError("bad device token from \(origin()): \(error)")
            }
        }
    }
}
