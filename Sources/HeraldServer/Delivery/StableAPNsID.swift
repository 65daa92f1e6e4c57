import Foundation

/// UUIDv5-style apns-id from (push id, installation id): the same delivery always carries the same id.
func stableAPNsID(pushID: String, installationID: String, crypto: any ServerCrypto) -> String {
    var b = Array(crypto.sha256(Array("herald:apns-id:\(pushID):\(installationID)".utf8)).prefix(16))
    b[6] = (b[6] & 0x0f) | 0x50
    b[8] = (b[8] & 0x3f) | 0x80
    let h = b.hex
    let c = Array(h)
    return String(c[0..<8]) + "-" + String(c[8..<12]) + "-" + String(c[12..<16]) + "-" + String(c[16..<20]) + "-" + String(c[20..<32])
}
