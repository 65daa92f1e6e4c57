import Foundation
import APNSCore

/// Reads device tokens from --token, --tokens-file and standard input (`-`), one per line.
enum TokenInput {
    /// A line of a tokens file that is not a device token: where it is and why.
    struct BadLine: Equatable, Sendable {
        var origin: String
        var line: Int
        var message: String
        var description: String { "\(origin) line \(line): \(message)" }
    }

    /// The tokens, and the lines of the file that are not tokens: one bad line in a list of thousands
    /// should not hold back the rest. A bad `--token` is a usage error (the command line is wrong).
    static func read(_ args: ParsedArguments, stdin: () -> String = { String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self) }) throws -> (tokens: [DeviceToken], bad: [BadLine]) {
        var tokens = try args.all("token").map { text in
            do { return try DeviceToken(pasted: text) } catch { throw UsageError("bad device token from --token: \(error)") }
        }
        var bad: [BadLine] = []
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
                do {
                    tokens.append(try DeviceToken(pasted: String(Substring(line))))
                } catch {
                    bad.append(BadLine(origin: origin, line: n + 1, message: "\(error)"))
                }
            }
        }
        guard !tokens.isEmpty || !bad.isEmpty else {
            throw UsageError("no device token: give --token T (repeatable) or --tokens-file F (- for standard input)")
        }
        return (tokens, bad)
    }
}
