import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP exchange with the Herald server, without retries.
struct HTTPTransport: Sendable {
    struct Response: Sendable {
        var status: Int
        var body: Data
        var retryAfter: String?
    }

    let baseURL: URL
    let clientKey: String
    let session: URLSession
    let timeout: TimeInterval

    init(baseURL: URL, clientKey: String, timeout: TimeInterval) {
        self.baseURL = baseURL
        self.clientKey = clientKey
        self.timeout = timeout
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        self.session = URLSession(configuration: configuration)
    }

    /// Sends `body` (JSON) to `path` relative to the server URL.
    func send(_ method: String, _ path: String, body: Data?) async throws -> Response {
        var request = URLRequest(url: url(for: path), timeoutInterval: timeout)
        request.httpMethod = method
        request.setValue("Bearer \(clientKey)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = body
        }
        let running = RunningTask()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Response, any Error>) in
                let task = session.dataTask(with: request) { data, response, error in
                    if let error {
                        continuation.resume(throwing: error)
                    } else if let http = response as? HTTPURLResponse {
                        continuation.resume(returning: Response(
                            status: http.statusCode, body: data ?? Data(),
                            retryAfter: http.value(forHTTPHeaderField: "Retry-After")))
                    } else {
                        continuation.resume(throwing: URLError(.badServerResponse))
                    }
                }
                running.start(task)
            }
        } onCancel: {
            running.cancel()
        }
    }

    private func url(for path: String) -> URL {
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return URL(string: base + path) ?? baseURL
    }

    func invalidate() {
        session.finishTasksAndInvalidate()
    }
}
