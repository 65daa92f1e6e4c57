internal import COpenSSL
internal import CHeraldShims

/// Drains OpenSSL's thread-local error queue into one readable line (and leaves it empty, so a later
/// failure is not blamed on this one).
func drainOpenSSLErrors() -> String {
    var messages: [String] = []
    while true {
        let code = ERR_get_error()
        if code == 0 { break }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        messages.append(buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
    }
    return messages.isEmpty ? "no detail from OpenSSL" : messages.joined(separator: "; ")
}

func openSSLFailure(_ operation: String) -> CryptoError {
    .openSSL(operation: operation, detail: drainOpenSSLErrors())
}

/// Owns a BIO for the duration of a closure.
func withMemoryBIO<R>(_ body: (OpaquePointer) throws -> R) throws -> R {
    guard let bio = BIO_new(BIO_s_mem()) else { throw openSSLFailure("BIO_new") }
    defer { BIO_free(bio) }
    return try body(bio)
}

/// Runs `body` with a read-only memory BIO over `bytes`. BIO_new_mem_buf does not copy, so the BIO never
/// outlives the buffer.
func withReadBIO<R>(_ bytes: [UInt8], _ body: (OpaquePointer) throws -> R) throws -> R {
    try bytes.withUnsafeBytes { buffer in
        guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else {
            throw openSSLFailure("BIO_new_mem_buf")
        }
        defer { BIO_free(bio) }
        return try body(bio)
    }
}

/// Everything written to a memory BIO, as bytes.
func memoryBIOBytes(_ bio: OpaquePointer) -> [UInt8] {
    var data: UnsafePointer<CChar>?
    let length = herald_crypto_bio_mem_data(bio, &data)
    guard length > 0, let data else { return [] }
    return data.withMemoryRebound(to: UInt8.self, capacity: length) {
        Array(UnsafeBufferPointer(start: $0, count: length))
    }
}

func memoryBIOString(_ bio: OpaquePointer) -> String {
    String(decoding: memoryBIOBytes(bio), as: UTF8.self)
}

/// DER-encodes an OpenSSL object with its `i2d_*` function.
func encodeDER(_ encode: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32) -> [UInt8]? {
    let length = encode(nil)
    guard length > 0 else { return nil }
    var out = [UInt8](repeating: 0, count: Int(length))
    let written = out.withUnsafeMutableBufferPointer { buffer -> Int32 in
        var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
        return encode(&cursor)
    }
    return written == length ? out : nil
}

/// Bytes of an ASN1_STRING (octet string, UTF8String...).
func asn1StringBytes(_ string: UnsafePointer<ASN1_STRING>) -> [UInt8] {
    let length = Int(ASN1_STRING_length(string))
    guard length > 0, let data = ASN1_STRING_get0_data(string) else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: length))
}

/// A parsed OID, owned for the duration of the closure.
func withASN1Object<R>(oid: String, _ body: (OpaquePointer) throws -> R) throws -> R {
    guard let object = OBJ_txt2obj(oid, 1) else {
        _ = drainOpenSSLErrors()
        throw CryptoError.invalidArgument("'\(oid)' is not a dotted object identifier such as 1.2.840.113635.100.6.3.6")
    }
    defer { ASN1_OBJECT_free(object) }
    return try body(object)
}
