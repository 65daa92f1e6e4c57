import Foundation
import HeraldHTTP

/// The console's files, compiled into the binary (`ConsoleAssets+Files.swift`, generated from `Console/` by
/// scripts/console-assets.py, gzip included, so nothing is compressed per request). Served with a strong
/// ETag (revalidated on every load: `no-cache`, answered by 304 when unchanged), gzip when the browser
/// accepts it, and the console's security headers.
enum ConsoleAssets {
    struct File: Sendable {
        var contentType: String
        var etag: String
        var bytes: [UInt8]
        var gzip: [UInt8]
    }

    /// Only the console's own origin: no inline script or style, no eval, no other origin, no framing.
    static let contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    static let files: [String: File] = generated.reduce(into: [:]) { out, entry in
        out[entry.name] = File(contentType: entry.type, etag: "\"\(entry.etag)\"",
                               bytes: Array(Data(base64Encoded: entry.base64) ?? Data()),
                               gzip: Array(Data(base64Encoded: entry.gzipBase64) ?? Data()))
    }

    static func response(for name: String, request: HTTPRequest) throws -> HTTPResponse {
        guard let file = files[name] else {
            throw APIError(status: 404, code: "not_found", message: "The console has no file \(name).")
        }
        var headers = securityHeaders
        headers.set("etag", file.etag)
        headers.set("cache-control", "no-cache")
        headers.set("vary", "accept-encoding")
        if let match = request.headers["if-none-match"], match.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == file.etag }) {
            return HTTPResponse(status: 304, headers: headers)
        }
        headers.set("content-type", file.contentType)
        if acceptsGzip(request.headers["accept-encoding"]) {
            headers.set("content-encoding", "gzip")
            return HTTPResponse(status: 200, headers: headers, body: file.gzip)
        }
        return HTTPResponse(status: 200, headers: headers, body: file.bytes)
    }

    static var securityHeaders: HTTPHeaders {
        ["content-security-policy": contentSecurityPolicy, "x-frame-options": "DENY", "referrer-policy": "no-referrer",
         "x-content-type-options": "nosniff", "cross-origin-opener-policy": "same-origin"]
    }

    /// `gzip` listed without `q=0`.
    static func acceptsGzip(_ header: String?) -> Bool {
        guard let header else { return false }
        return header.split(separator: ",").contains { item in
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            return parts.first?.lowercased() == "gzip" && !parts.dropFirst().contains { $0.replacingOccurrences(of: " ", with: "") == "q=0" }
        }
    }
}
