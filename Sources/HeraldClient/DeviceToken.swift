import Foundation

/// Also reachable as `HeraldClient.DeviceToken`, for files that import another module with a `DeviceToken`
/// (APNSCore, APNSClient, HeraldSimulator): the module name cannot qualify it, the actor's can.
public typealias DeviceToken = HeraldClient.DeviceToken

extension HeraldClient {
    /// An APNs device token as the app receives it in
    /// `application(_:didRegisterForRemoteNotificationsWithDeviceToken:)`, and its lowercase hex form.
    ///
    /// Tokens are opaque bytes of no fixed length: Apple has said they may grow, so the hex form is built
    /// from every byte (not from eight 32-bit words, and not from `Data.description`, whose format changed
    /// in iOS 13).
    public struct DeviceToken: Sendable, Hashable, CustomStringConvertible {
        /// The raw token bytes.
        public let bytes: Data

        /// Wraps the token bytes handed to the app delegate.
        public init(_ bytes: Data) {
            self.bytes = bytes
        }

        /// Parses a hex token (either case, spaces and angle brackets tolerated, as older tools printed them).
        /// - Throws: ``HeraldClientError/invalidDeviceToken(_:)`` when the text is empty, has an odd number
        ///   of digits or contains something other than hex digits.
        public init(hex: String) throws {
            let digits = hex.filter { !" <>".contains($0) }
            guard !digits.isEmpty, digits.count.isMultiple(of: 2) else {
                throw HeraldClientError.invalidDeviceToken(hex)
            }
            var bytes = Data(capacity: digits.count / 2)
            var index = digits.startIndex
            while index < digits.endIndex {
                let next = digits.index(index, offsetBy: 2)
                guard let byte = UInt8(digits[index..<next], radix: 16) else {
                    throw HeraldClientError.invalidDeviceToken(hex)
                }
                bytes.append(byte)
                index = next
            }
            self.bytes = bytes
        }

        /// The token as lowercase hex, two digits per byte: what the Herald server and APNs expect.
        public var hex: String {
            bytes.hexString
        }

        public var description: String { hex }
    }
}

extension Data {
    /// Lowercase hex, two digits per byte, for data of any length.
    var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(count * 2)
        for byte in self {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
