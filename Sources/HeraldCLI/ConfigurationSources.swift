import Foundation

/// Configuration keys in one dotted form everywhere: `store.path` = `HERALD_STORE_PATH` = `--store-path`.
/// Precedence: flags over environment over the file over built-in defaults.
struct ConfigurationSources {
    /// The merged values, by dotted key.
    private(set) var values: [String: String] = [:]
    /// Where each value came from, for `--print-config` and error messages.
    private(set) var origins: [String: String] = [:]

    /// `known` lists every dotted key; anything else in the file or the flags is an error.
    init(file: String?, environment: [String: String], flags: [String: String], known: [String]) throws {
        if let file {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw UsageError("cannot read the configuration file \(file)")
            }
            for (key, value) in try Self.parseFile(text, path: file) {
                try Self.check(key, known: known, origin: file)
                values[key] = value
                origins[key] = file
            }
        }
        for key in known {
            let old = Self.formerEnvironmentName(key)
            if old != Self.environmentName(key), environment[old] != nil {
                throw UsageError("\(old) is now called \(Self.environmentName(key)); rename it")
            }
            if let value = environment[Self.environmentName(key)] {
                values[key] = value
                origins[key] = "environment \(Self.environmentName(key))"
            }
        }
        for (key, value) in flags {
            try Self.check(key, known: known, origin: "--\(Self.flagName(key))")
            values[key] = value
            origins[key] = "--\(Self.flagName(key))"
        }
    }

    /// `api.maxBodyBytes` → `HERALD_API_MAX_BODY_BYTES`.
    static func environmentName(_ key: String) -> String {
        "HERALD_" + words(key).joined(separator: "_").uppercased()
    }

    /// The variable's name before acronyms stayed one word (every capital started one): `delivery.defaultTTL`
    /// read HERALD_DELIVERY_DEFAULT_T_T_L, and a setting still under that name would be ignored silently.
    static func formerEnvironmentName(_ key: String) -> String {
        "HERALD_" + key.split(separator: ".").flatMap { part in
            part.reduce(into: [String]()) { words, c in
                if c.isUppercase || words.isEmpty { words.append("") }
                words[words.count - 1].append(c)
            }
        }.joined(separator: "_").uppercased()
    }

    /// `api.maxBodyBytes` → `api-max-body-bytes`.
    static func flagName(_ key: String) -> String { words(key).joined(separator: "-") }

    /// A capital starts a word, except inside an acronym, which stays one word (`delivery.defaultTTL` →
    /// `delivery-default-ttl`, not `delivery-default-t-t-l`; an acronym's last capital followed by a small
    /// letter starts the next word, as in `URLPath` → `url-path`).
    private static func words(_ key: String) -> [String] {
        var out: [String] = []
        for part in key.split(separator: ".") {
            let c = Array(part)
            var word = ""
            for i in c.indices {
                let startsWord = c[i].isUppercase && i > 0
                    && (!c[i - 1].isUppercase || (i + 1 < c.count && c[i + 1].isLowercase))
                if startsWord, !word.isEmpty { out.append(word); word = "" }
                word.append(c[i].lowercased())
            }
            out.append(word)
        }
        return out
    }

    /// The file holds `key = value` lines (# comments) or one JSON object of dotted keys.
    static func parseFile(_ text: String, path: String) throws -> [(String, String)] {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("{") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(trimmed.utf8)) as? [String: Any] else {
                throw UsageError("\(path) is not a JSON object of dotted keys")
            }
            return object.map { ($0.key, "\($0.value)") }.sorted { $0.0 < $1.0 }
        }
        var out: [(String, String)] = []
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let eq = line.firstIndex(of: "=") else { throw UsageError("\(path) line \(n + 1): expected `key = value`") }
            out.append((line[..<eq].trimmingCharacters(in: .whitespaces), line[line.index(after: eq)...].trimmingCharacters(in: .whitespaces)))
        }
        return out
    }

    private static func check(_ key: String, known: [String], origin: String) throws {
        guard known.contains(key) else { throw UsageError("\(origin): unknown configuration key \(key)") }
    }
}
