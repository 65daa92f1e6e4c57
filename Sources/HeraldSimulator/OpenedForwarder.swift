import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Forwards "opened" reports to a callback URL (herald serve's open tracking, or anything else):
/// `POST <url>` with `content-type: application/json`, `authorization: Bearer <key>` when a key is
/// configured, and the report as the body. Fire and forget: one attempt, failures are ignored (the
/// report stays in the simulator either way).
struct OpenedForwarder: Sendable {
    let url: URL
    var key: String?

    func forward(_ report: OpenReport) {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "content-type")
        if let key { request.setValue("Bearer \(key)", forHTTPHeaderField: "authorization") }
        request.httpBody = Data(InspectionJSON.bytes(InspectionJSON.open(report)))
        request.timeoutInterval = 5
        URLSession.shared.dataTask(with: request) { _, _, _ in }.resume()
    }
}
