import Foundation

/// The limits the Herald server puts on installation fields, checked before a change is stored: a value
/// the server would refuse must never become pending, or every later sync would fail on it.
enum InstallationRules {
    static let maxTagBytes = 64
    static let maxNameBytes = 128
    static let maxPropertyCount = 64
    static let maxPropertiesBytes = 4096

    /// 1–64 bytes, no whitespace, commas or control characters.
    static func validate(tags: Set<String>) throws {
        for tag in tags.sorted() {
            let clean = !tag.isEmpty && tag.utf8.count <= maxTagBytes && tag.unicodeScalars.allSatisfy { scalar in
                !(scalar.properties.isWhitespace || scalar.value < 0x20 || scalar == "," || scalar.value == 0x7f)
            }
            guard clean else {
                throw HeraldClientError.invalidArgument(
                    name: "tag", reason: "\"\(tag)\" must be 1–\(maxTagBytes) bytes without spaces, commas or control characters")
            }
        }
    }

    /// An alias or user id: nil clears it; otherwise 1–128 bytes.
    static func validate(_ text: String?, name: String) throws {
        guard let text else { return }
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw HeraldClientError.invalidArgument(name: name, reason: "use nil to clear it, not an empty string")
        }
        guard text.utf8.count <= maxNameBytes else {
            throw HeraldClientError.invalidArgument(name: name, reason: "it is longer than \(maxNameBytes) bytes")
        }
    }

    /// At most 64 keys of strings, numbers, booleans or null, 4096 bytes as JSON.
    static func validate(properties: [String: JSONValue]) throws {
        guard properties.count <= maxPropertyCount else {
            throw HeraldClientError.invalidArgument(name: "properties", reason: "at most \(maxPropertyCount) keys, got \(properties.count)")
        }
        for (key, value) in properties {
            switch value {
            case .array, .object:
                throw HeraldClientError.invalidArgument(
                    name: "properties.\(key)", reason: "values must be strings, numbers, booleans or null, not arrays or objects")
            default: continue
            }
        }
        let size = (try? JSONEncoder().encode(properties).count) ?? 0
        guard size <= maxPropertiesBytes else {
            throw HeraldClientError.invalidArgument(name: "properties", reason: "\(size) bytes as JSON, at most \(maxPropertiesBytes)")
        }
    }

    /// A locale identifier the server accepts: Apple's `@` keywords (`en_US@rg=gbzzzz`,
    /// `@calendar=…`) are dropped, and anything left that is not 2–35 letters, digits, `-` or `_` is not sent.
    static func normalizedLocale(_ identifier: String?) -> String? {
        guard let base = identifier?.split(separator: "@").first.map(String.init) else { return nil }
        let allowed = base.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7a) || byte == 0x2d || byte == 0x5f
        }
        return allowed && (2...35).contains(base.count) ? base : nil
    }
}
