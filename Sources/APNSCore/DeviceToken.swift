/// An APNs device token: the bytes APNs gave the app, carried as lowercase hexadecimal.
///
/// Apple says not to assume a token's size, so any whole number of bytes from
/// ``minimumByteCount`` to ``maximumByteCount`` is accepted (today's tokens are 32 bytes).
/// Hex input is case-insensitive and normalised to lowercase, so two spellings of one token are
/// equal and hash alike.
public struct DeviceToken: Sendable, Hashable, Comparable {
    /// Fewest bytes accepted. Real tokens have always been 32 bytes; eight keeps typos and
    /// placeholders such as `"abcd"` out while leaving room for shorter test tokens.
    public static let minimumByteCount = 8
    /// Most bytes accepted: the binary provider API's documented ceiling for a token item.
    public static let maximumByteCount = 100

    /// The token as lowercase hexadecimal, as it appears in `/3/device/<token>`.
    public let hex: String

    /// Validates and normalises a hexadecimal token.
    ///
    /// - Throws: ``DeviceTokenError`` naming the problem: empty, odd length, a non-hex
    ///   character and its position, or a byte count outside the accepted range.
    public init(hex: String) throws(DeviceTokenError) {
        guard !hex.utf8.isEmpty else { throw .empty }
        // One pass over contiguous bytes: servers and `herald send` parse a token per notification.
        var text = hex
        let scan = text.withUTF8 { bytes -> (firstInvalid: Int?, hasUppercase: Bool) in
            // A table lookup per byte and one test per token: a fan-out validates each token it sends,
            // and a switch over three ranges per byte was most of that.
            Self.hexClasses.withUnsafeBufferPointer { classes in
                var seen: UInt8 = 0
                for byte in bytes { seen |= classes[Int(byte)] }
                guard seen & Self.invalidHex != 0 else { return (nil, seen & Self.uppercaseHex != 0) }
                return (bytes.firstIndex { classes[Int($0)] & Self.invalidHex != 0 }, false)
            }
        }
        if let index = scan.firstInvalid {
            let characterIndex = hex.utf8.index(hex.utf8.startIndex, offsetBy: index)
            let character = hex[characterIndex...].first ?? "?"
            let position = hex.distance(from: hex.startIndex, to: characterIndex) + 1
            throw .invalidCharacter(character, position: position)
        }
        let count = hex.utf8.count
        guard count % 2 == 0 else { throw .oddLength(count) }
        try Self.checkByteCount(count / 2)
        // Already lowercase (the common case): keep the caller's string instead of building a new one.
        self.hex = scan.hasUppercase ? String(decoding: hex.utf8.map { $0 >= 0x41 && $0 <= 0x46 ? $0 | 0x20 : $0 }, as: UTF8.self) : hex
    }

    /// Accepts the forms people paste: spaces, angle brackets and surrounding whitespace are
    /// dropped first (`"<43e798c3 1a282d12 …>"`, as `NSData.description` printed tokens).
    public init(pasted text: String) throws(DeviceTokenError) {
        // Fast path for plain hex (token lists): nothing to strip.
        if !text.utf8.contains(where: { $0 <= 0x20 || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") || $0 >= 0x80 }) {
            try self.init(hex: text)
            return
        }
        let kept = text.unicodeScalars.filter { scalar in
            scalar != "<" && scalar != ">" && !scalar.properties.isWhitespace
        }
        try self.init(hex: String(String.UnicodeScalarView(kept)))
    }

    /// The token for raw bytes, as the app receives them in
    /// `didRegisterForRemoteNotificationsWithDeviceToken`.
    public init(bytes: some Collection<UInt8>) throws(DeviceTokenError) {
        guard !bytes.isEmpty else { throw .empty }
        try Self.checkByteCount(bytes.count)
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        self.hex = String(decoding: text, as: UTF8.self)
    }

    /// The token's bytes.
    public var bytes: [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(hex.utf8.count / 2)
        var high: UInt8 = 0
        for (index, byte) in hex.utf8.enumerated() {
            // Only lowercase hex is ever stored.
            let nibble = byte <= UInt8(ascii: "9") ? byte - UInt8(ascii: "0") : byte - UInt8(ascii: "a") + 10
            if index % 2 == 0 {
                high = nibble << 4
            } else {
                result.append(high | nibble)
            }
        }
        return result
    }

    /// Number of bytes in the token.
    public var byteCount: Int { hex.utf8.count / 2 }

    /// The first eight hex digits and an ellipsis, for logs where the full token is noise.
    public var abbreviated: String {
        String(hex.prefix(8)) + "…"
    }

    public static func < (lhs: DeviceToken, rhs: DeviceToken) -> Bool {
        lhs.hex < rhs.hex
    }

    private static let invalidHex: UInt8 = 1, uppercaseHex: UInt8 = 2
    /// For each byte value: `invalidHex` unless it is a hex digit, `uppercaseHex` for `A`-`F`.
    private static let hexClasses: [UInt8] = (0...255).map { byte -> UInt8 in
        switch UInt8(byte) {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): 0
        case UInt8(ascii: "A")...UInt8(ascii: "F"): uppercaseHex
        default: invalidHex
        }
    }

    private static func checkByteCount(_ count: Int) throws(DeviceTokenError) {
        if count < minimumByteCount { throw .tooShort(byteCount: count) }
        if count > maximumByteCount { throw .tooLong(byteCount: count) }
    }
}

extension DeviceToken: CustomStringConvertible {
    public var description: String { hex }
}

extension DeviceToken: Codable {
    /// Decodes from a hex string, validating it.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            try self.init(hex: text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}

/// Why a string or byte sequence is not a device token.
public enum DeviceTokenError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing was given.
    case empty
    /// The hex string has an odd number of digits, so it cannot be whole bytes.
    case oddLength(Int)
    /// A character that is not a hex digit, at a 1-based character position.
    case invalidCharacter(Character, position: Int)
    /// Fewer bytes than ``DeviceToken/minimumByteCount``.
    case tooShort(byteCount: Int)
    /// More bytes than ``DeviceToken/maximumByteCount``.
    case tooLong(byteCount: Int)

    public var description: String {
        switch self {
        case .empty:
            return "device token is empty: pass the hex string the app received from APNs"
        case .oddLength(let count):
            return "device token has an odd number of hex digits (\(count)): each byte needs two digits; "
                + "check for a missing or extra character"
        case .invalidCharacter(let character, let position):
            return "device token has a non-hex character \(character.debugDescription) at position \(position): "
                + "only 0-9 and a-f are allowed (remove spaces and angle brackets)"
        case .tooShort(let count):
            return "device token is \(count) bytes, shorter than the minimum of \(DeviceToken.minimumByteCount) "
                + "bytes: APNs tokens are normally 32 bytes (64 hex digits)"
        case .tooLong(let count):
            return "device token is \(count) bytes, longer than the maximum of \(DeviceToken.maximumByteCount) bytes"
        }
    }
}
