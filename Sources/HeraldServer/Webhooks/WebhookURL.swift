import Foundation

/// A webhook's URL, checked when it is stored: https, or http for this machine only (unless
/// `webhooks.allowHttp`), no credentials in it, no fragment.
struct WebhookURL: Sendable, Equatable {
    var secure: Bool
    var host: String
    var port: Int
    /// Path and query, as sent in the request line.
    var target: String

    static let maxLength = 2048
    static let localHosts: Set<String> = ["localhost", "127.0.0.1", "::1"]

    static func parse(_ text: String, allowHTTP: Bool, field: String = "url") throws -> WebhookURL {
        func invalid(_ why: String) -> ServiceError {
            ServiceError.invalid(field, "\(field) \(why); give an https URL such as https://example.com/herald-events.")
        }
        guard text.utf8.count <= maxLength else { throw invalid("is longer than \(maxLength) bytes") }
        guard let c = URLComponents(string: text), let scheme = c.scheme?.lowercased() else { throw invalid("is not a URL") }
        guard scheme == "https" || scheme == "http" else { throw invalid("must use https (http only for localhost)") }
        guard let host = c.host?.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), !host.isEmpty else { throw invalid("has no host") }
        guard c.user == nil, c.password == nil else { throw invalid("must not hold a user or password (the signature authenticates Herald)") }
        guard c.fragment == nil else { throw invalid("must not have a #fragment") }
        if scheme == "http" && !allowHTTP && !localHosts.contains(host.lowercased()) {
            throw invalid("uses http to another machine; events would travel unencrypted (the server's webhooks.allowHttp allows it)")
        }
        if let port = c.port, !(1...65535).contains(port) { throw invalid("has a port out of range") }
        var target = c.percentEncodedPath.isEmpty ? "/" : c.percentEncodedPath
        if let q = c.percentEncodedQuery { target += "?" + q }
        return WebhookURL(secure: scheme == "https", host: host, port: c.port ?? (scheme == "https" ? 443 : 80), target: target)
    }
}
