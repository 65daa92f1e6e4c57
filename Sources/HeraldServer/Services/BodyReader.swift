import Foundation
import APNSCore

/// Reads typed fields out of a JSON object (a request document, a stored push) and reports the exact field
/// that is wrong.
struct BodyReader {
    let object: [String: JSON]
    /// Dotted path of this object inside the body ("content.alert"), for error fields.
    let path: String

    init(_ object: [String: JSON], path: String = "") {
        self.object = object
        self.path = path
    }

    func name(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    func has(_ key: String) -> Bool { value(key) != nil }

    /// The value of `key`. A reader asks for every field it knows (a registration: 17) and a request sends a
    /// few, so a small object is scanned, comparing names (their lengths first), where a lookup hashed each
    /// name asked for: 6,000 instructions of a registration.
    private func value(_ key: String) -> JSON? {
        guard object.count <= 8 else { return object[key] }
        for (name, value) in object where name == key { return value }
        return nil
    }

    /// Rejects fields outside `allowed`, ignoring `ignored` (read-only fields a client may echo back): the
    /// first such field in name order, so the answer is the same whatever order the body had.
    func rejectUnknown(_ allowed: Set<String>, ignoring ignored: Set<String> = []) throws {
        guard object.keys.contains(where: { !allowed.contains($0) && !ignored.contains($0) }) else { return }
        for key in object.keys.sorted() where !allowed.contains(key) && !ignored.contains(key) {
            throw ServiceError.unknownField(name(key), known: allowed)
        }
    }

    func string(_ key: String, maxLength: Int = 256, allowEmpty: Bool = false) throws -> String? {
        guard let v = value(key), !v.isNull else { return nil }
        guard let s = v.stringValue else { throw ServiceError.invalid(name(key), "\(name(key)) must be a string.") }
        if !allowEmpty && s.isEmpty { throw ServiceError.invalid(name(key), "\(name(key)) must not be empty.") }
        if s.utf8.count > maxLength { throw ServiceError.invalid(name(key), "\(name(key)) is longer than \(maxLength) bytes.") }
        return s
    }

    func requiredString(_ key: String, maxLength: Int = 256) throws -> String {
        guard let s = try string(key, maxLength: maxLength) else { throw ServiceError.missing(name(key)) }
        return s
    }

    /// Absent → nil; explicit null → .some(nil) (clear the field); a string → .some(value).
    func nullableString(_ key: String, maxLength: Int = 256) throws -> String?? {
        guard let v = value(key) else { return nil }
        if v.isNull { return .some(nil) }
        return .some(try string(key, maxLength: maxLength))
    }

    func int(_ key: String, range: ClosedRange<Int>) throws -> Int? {
        guard let v = value(key), !v.isNull else { return nil }
        guard let n = v.intValue else { throw ServiceError.invalid(name(key), "\(name(key)) must be an integer.") }
        guard range.contains(n) else { throw ServiceError.invalid(name(key), "\(name(key)) must be between \(range.lowerBound) and \(range.upperBound).") }
        return n
    }

    func double(_ key: String, range: ClosedRange<Double>) throws -> Double? {
        guard let v = value(key), !v.isNull else { return nil }
        guard let n = v.doubleValue else { throw ServiceError.invalid(name(key), "\(name(key)) must be a number.") }
        guard range.contains(n) else { throw ServiceError.invalid(name(key), "\(name(key)) must be between \(range.lowerBound) and \(range.upperBound).") }
        return n
    }

    func bool(_ key: String) throws -> Bool? {
        guard let v = value(key), !v.isNull else { return nil }
        guard let b = v.boolValue else { throw ServiceError.invalid(name(key), "\(name(key)) must be true or false.") }
        return b
    }

    func stringArray(_ key: String, maxCount: Int, maxLength: Int = 256) throws -> [String]? {
        guard let v = value(key), !v.isNull else { return nil }
        guard let a = v.arrayValue else { throw ServiceError.invalid(name(key), "\(name(key)) must be an array of strings.") }
        guard a.count <= maxCount else { throw ServiceError.invalid(name(key), "\(name(key)) has \(a.count) items; at most \(maxCount) are allowed.") }
        return try a.enumerated().map { i, item in
            guard let s = item.stringValue, !s.isEmpty else { throw ServiceError.invalid("\(name(key))[\(i)]", "\(name(key))[\(i)] must be a non-empty string.") }
            guard s.utf8.count <= maxLength else { throw ServiceError.invalid("\(name(key))[\(i)]", "\(name(key))[\(i)] is longer than \(maxLength) bytes.") }
            return s
        }
    }

    func object(_ key: String) throws -> BodyReader? {
        guard let v = value(key), !v.isNull else { return nil }
        guard let o = v.objectValue else { throw ServiceError.invalid(name(key), "\(name(key)) must be an object.") }
        return BodyReader(o, path: name(key))
    }

    func date(_ key: String) throws -> Date? {
        guard let s = try string(key, maxLength: 64) else { return nil }
        guard let d = ISO8601.parse(s) else { throw ServiceError.invalid(name(key), "\(name(key)) must be an ISO 8601 time such as 2026-05-01T08:00:00Z.") }
        return d
    }
}

/// Field rules shared by installations, pushes and import.
enum Rules {
    static func validTag(_ tag: String) -> Bool {
        guard !tag.isEmpty && tag.utf8.count <= 64 else { return false }
        // ASCII first, byte by byte (its whitespace is 0x09-0x0D and the space); Unicode's whitespace
        // property, looked up per scalar, was 4% of an import's CPU.
        if tag.utf8.allSatisfy({ $0 < 0x80 }) {
            return tag.utf8.allSatisfy { $0 > 0x20 && $0 != UInt8(ascii: ",") && $0 != 0x7F }
        }
        return tag.unicodeScalars.allSatisfy { s in
            !(s.properties.isWhitespace || s.value < 0x20 || s == "," || s == "\u{7f}")
        }
    }

    static func tags(_ values: [String]?, field: String) throws -> [String]? {
        guard let values else { return nil }
        for (i, tag) in values.enumerated() where !validTag(tag) {
            throw ServiceError.invalid("\(field)[\(i)]", "Tag '\(tag)' is invalid: 1–64 bytes, no spaces, commas or control characters.")
        }
        return values
    }

    /// The APNs token as hex (APNSCore's `DeviceToken` rules: any whole number of bytes 8–100, no length
    /// assumed); returned lowercased.
    static func deviceToken(_ token: String, field: String) throws -> String {
        do { return try DeviceToken(hex: token).hex } catch {
            throw ServiceError(.invalid, code: "invalid_device_token",
                           message: "\(field) is not an APNs device token (\(error)). Send the token as hex: in the app, map the Data from didRegisterForRemoteNotificationsWithDeviceToken with String(format: \"%02x\", $0).",
                           field: field)
        }
    }

    static func environment(_ value: String?, field: String) throws -> String? {
        guard let value else { return nil }
        guard value == "sandbox" || value == "production" else {
            throw ServiceError.invalid(field, "\(field) must be \"sandbox\" (development builds) or \"production\" (TestFlight and App Store).")
        }
        return value
    }

    static func timeZone(_ value: String?, field: String) throws -> String? {
        guard let value else { return nil }
        guard TimeZone(identifier: value) != nil else { throw ServiceError.invalid(field, "\(field) '\(value)' is not an IANA time zone such as Europe/Paris.") }
        return value
    }

    static func locale(_ value: String?, field: String) throws -> String? {
        guard let value else { return nil }
        guard (2...35).contains(value.count), value.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7a) || $0 == 0x2d || $0 == 0x5f }) else {
            throw ServiceError.invalid(field, "\(field) must be a locale identifier such as fr-FR or zh_Hans_CN.")
        }
        return value
    }

    /// Pushes per second, for an app or one push.
    static let rateLimits = 1...10_000_000

    static func rateLimit(_ value: Int?, field: String) throws -> Int? {
        guard let value else { return nil }
        guard rateLimits.contains(value) else {
            throw ServiceError.invalid(field, "\(field) must be between \(rateLimits.lowerBound) and \(rateLimits.upperBound).")
        }
        return value
    }

    static func identifier(_ value: String, field: String) throws -> String {
        guard (1...128).contains(value.utf8.count), value.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7a) || $0 == 0x2d || $0 == 0x5f || $0 == 0x2e || $0 == 0x3a }) else {
            throw ServiceError.invalid(field, "\(field) must be 1–128 characters of letters, digits, '-', '_', '.' or ':'.")
        }
        return value
    }
}
