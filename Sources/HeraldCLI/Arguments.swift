/// One option a command accepts.
public struct Option: Sendable {
    public let name: String          // without the leading dashes
    public let valueName: String?    // nil for a flag
    public let help: String
    public let repeatable: Bool

    public static func flag(_ name: String, _ help: String) -> Option {
        Option(name: name, valueName: nil, help: help, repeatable: false)
    }

    public static func value(_ name: String, _ valueName: String, _ help: String, repeatable: Bool = false) -> Option {
        Option(name: name, valueName: valueName, help: help, repeatable: repeatable)
    }
}

/// A wrong command line: printed with a pointer to `--help`, exit code 64.
public struct UsageError: Error, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Options and positional arguments, parsed against a command's option list.
public struct ParsedArguments: Sendable {
    private(set) var values: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    public private(set) var positionals: [String] = []

    public init(_ args: [String], options: [Option]) throws(UsageError) {
        let byName = Dictionary(options.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var i = 0
        var onlyPositionals = false
        while i < args.count {
            let arg = args[i]
            i += 1
            if onlyPositionals || !arg.hasPrefix("--") || arg == "-" {
                positionals.append(arg)
                continue
            }
            if arg == "--" { onlyPositionals = true; continue }
            var name = String(arg.dropFirst(2))
            var inlineValue: String?
            if let eq = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            guard let option = byName[name] else {
                let close = options.map(\.name).filter { $0.hasPrefix(String(name.prefix(3))) }
                throw UsageError("unknown option --\(name)" + (close.isEmpty ? "" : " (did you mean --\(close[0])?)"))
            }
            if option.valueName == nil {
                guard inlineValue == nil else { throw UsageError("--\(name) is a flag and takes no value") }
                flags.insert(name)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard i < args.count else { throw UsageError("--\(name) needs a value: --\(name) <\(option.valueName!)>") }
                value = args[i]
                i += 1
            }
            if !option.repeatable, values[name] != nil { throw UsageError("--\(name) given twice; it takes one value") }
            values[name, default: []].append(value)
        }
    }

    public func has(_ flag: String) -> Bool { flags.contains(flag) }
    public func value(_ name: String) -> String? { values[name]?.last }
    public func all(_ name: String) -> [String] { values[name] ?? [] }

    public func int(_ name: String) throws(UsageError) -> Int? {
        guard let v = value(name) else { return nil }
        guard let n = Int(v) else { throw UsageError("--\(name) must be a whole number, got \"\(v)\"") }
        return n
    }

    public func required(_ name: String, _ why: String = "") throws(UsageError) -> String {
        guard let v = value(name) else { throw UsageError("--\(name) is required" + (why.isEmpty ? "" : ": \(why)")) }
        return v
    }
}
