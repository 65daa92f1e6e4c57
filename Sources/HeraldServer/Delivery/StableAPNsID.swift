import Foundation

/// UUIDv5-style apns-id from (push id, installation id): the same delivery always carries the same id.
/// Computed for every delivery of a fan-out, so it is formatted byte by byte rather than through
/// `Character` arrays.
func stableAPNsID(pushID: String, installationID: String, crypto: any ServerCrypto) -> String {
    var input = Array("herald:apns-id:".utf8)
    input += pushID.utf8
    input.append(UInt8(ascii: ":"))
    input += installationID.utf8
    var b = crypto.sha256(input)
    b[6] = (b[6] & 0x0f) | 0x50
    b[8] = (b[8] & 0x3f) | 0x80
    let digits: [UInt8] = Array("0123456789abcdef".utf8)
    var out = [UInt8]()
    out.reserveCapacity(36)
    for i in 0..<16 {
        if i == 4 || i == 6 || i == 8 || i == 10 { out.append(UInt8(ascii: "-")) }
        out.append(digits[Int(b[i] >> 4)])
        out.append(digits[Int(b[i] & 0x0f)])
    }
    return String(decoding: out, as: UTF8.self)
}
