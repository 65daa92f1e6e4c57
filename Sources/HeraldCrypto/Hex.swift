/// Lowercase hexadecimal of `bytes`: fingerprints, secrets, device tokens from raw bytes.
public func hexString<B: Sequence<UInt8>>(_ bytes: B) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.underestimatedCount * 2)
    for byte in bytes {
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 0x0f)])
    }
    return String(decoding: out, as: UTF8.self)
}
