import Foundation
import APNSCore

/// Reads device tokens from --token, --tokens-file and standard input (`-`), one per line.
enum TokenInput {
    static func read(_ args: ParsedArguments, stdin: () -> String = { String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self) }) throws -> [DeviceToken] {
        var texts: [(String, String)] = args.all("token").map { ($0, "--token") }
        if let file = args.value("tokens-file") {
            let content: String
            if file == "-" {
                content = stdin()
            } else {
                guard let data = FileManager.default.contents(atPath: file) else { throw UsageError("cannot read the tokens file \(file)") }
                content = String(decoding: data, as: UTF8.self)
            }
            for (n, line) in content.split(whereSeparator: \.isNewline).enumerated() {
                let t = line.trimmingCharacters(in: .whitespaces)
                if t.isEmpty || t.hasPrefix("#") { continue }
                texts.append((t, "\(file == "-" ? "standard input" : file) line \(n + 1)"))
            }
        }
        guard !texts.isEmpty else { throw UsageError("no device token: give --token T (repeatable) or --tokens-file F (- for standard input)") }
        return try texts.map { text, origin in
            do {
                return try DeviceToken(pasted: text)
            } catch {
                throw UsageError("bad device token from \(origin): \(error)")
            }
        }
    }
}
