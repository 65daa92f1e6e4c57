import Foundation

/// A `herald` subcommand: its help text, options and what it does.
public protocol Command {
    static var name: String { get }
    /// One line for `herald --help`.
    static var abstract: String { get }
    /// What follows `herald <name>` in the usage line.
    static var usage: String { get }
    /// Extra paragraphs for `--help` (examples, notes).
    static var discussion: String { get }
    static var options: [Option] { get }
    /// Commands under this one (`herald sim key ...`); empty for a leaf command.
    static var subcommands: [Command.Type] { get }
    /// Runs the command; returns the exit code.
    static func run(_ args: ParsedArguments) async throws -> Int32
}

extension Command {
    public static var discussion: String { "" }
    public static var subcommands: [Command.Type] { [] }

    static func helpText() -> String {
        var text = "OVERVIEW: \(abstract)\n\nUSAGE: herald \(name) \(usage)\n"
        if !discussion.isEmpty { text += "\n\(discussion)\n" }
        if !subcommands.isEmpty {
            text += "\nSUBCOMMANDS:\n"
            for c in subcommands {
                text += "  \(c.name.split(separator: " ").last!.padding(toLength: 14, withPad: " ", startingAt: 0))\(c.abstract)\n"
            }
        }
        text += "\nOPTIONS:\n"
        let rows = (options + [.flag("help", "Show this help.")]).map { o -> (String, String) in
            ("--\(o.name)" + (o.valueName.map { " <\($0)>" } ?? ""), o.help + (o.repeatable ? " (repeatable)" : ""))
        }
        let width = min(34, (rows.map(\.0.count).max() ?? 0) + 2)
        for (left, right) in rows {
            let pad = left.count < width ? String(repeating: " ", count: width - left.count) : "\n" + String(repeating: " ", count: width + 2)
            text += "  \(left)\(pad)\(right)\n"
        }
        return text
    }
}

/// Writes to standard error.
enum Console {
    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    static var stderrIsTerminal: Bool { isatty(2) == 1 }
}
