import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends a request until it succeeds, the server refuses it, or the retry policy runs out.
struct RetryingSender: Sendable {
    let transport: HTTPTransport
    let policy: RetryPolicy
    let now: @Sendable () -> Date
    let sleep: @Sendable (TimeInterval) async throws -> Void

    /// Returns the first 2xx response (or one of `alsoAccept`); throws ``HeraldClientError`` otherwise.
    func send(_ method: String, _ path: String, body: Data?, alsoAccept: Set<Int> = []) async throws -> HTTPTransport.Response {
        var attempt = 1
        while true {
            try Task.checkCancellation()
            let failure: HeraldClientError
            var wait: TimeInterval?
            do {
                let response = try await transport.send(method, path, body: body)
                if (200..<300).contains(response.status) || alsoAccept.contains(response.status) {
                    return response
                }
                guard Self.isRetryable(status: response.status) else {
                    throw Self.rejection(response)
                }
                failure = .unavailable(attempts: attempt, lastStatus: response.status,
                                       reason: Self.message(in: response) ?? "HTTP \(response.status)")
                wait = response.retryAfter.flatMap { Self.retryAfterSeconds($0, now: now()) }
            } catch let error as URLError where Self.isRetryable(error) {
                failure = .unavailable(attempts: attempt, lastStatus: nil, reason: error.localizedDescription)
            } catch let error as URLError where error.code == .cancelled {
                throw CancellationError()
            } catch let error as URLError {
                throw HeraldClientError.unavailable(attempts: attempt, lastStatus: nil, reason: error.localizedDescription)
            }
            if let wait, wait > policy.maxRetryAfter {
                throw HeraldClientError.rateLimited(retryAfter: wait)
            }
            guard attempt < policy.maxAttempts else { throw failure }
            try await sleep(wait ?? policy.jitteredDelay(afterAttempt: attempt))
            attempt += 1
        }
    }

    static func isRetryable(status: Int) -> Bool {
        status == 408 || status == 429 || status >= 500
    }

    static func isRetryable(_ error: URLError) -> Bool {
        switch error.code {
        case .notConnectedToInternet, .cannotConnectToHost, .networkConnectionLost, .timedOut,
             .cannotFindHost, .dnsLookupFailed, .internationalRoamingOff, .dataNotAllowed,
             .callIsActive, .badServerResponse:
            return true
        default:
            return false
        }
    }

    /// `Retry-After` is either delta-seconds or an HTTP date.
    static func retryAfterSeconds(_ header: String, now: Date) -> TimeInterval? {
        let text = header.trimmingCharacters(in: .whitespaces)
        if let seconds = TimeInterval(text) { return max(0, seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: text) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }

    static func rejection(_ response: HTTPTransport.Response) -> HeraldClientError {
        let detail = try? JSONDecoder().decode(APIErrorBody.self, from: response.body).error
        return .rejected(status: response.status, code: detail?.code ?? "http_\(response.status)",
                         message: detail?.message ?? String(decoding: response.body.prefix(200), as: UTF8.self),
                         field: detail?.field)
    }

    static func message(in response: HTTPTransport.Response) -> String? {
        (try? JSONDecoder().decode(APIErrorBody.self, from: response.body))?.error.message
    }
}
