import Foundation
import HeraldHTTP

/// Talks JSON to Herald's HTTP APIs (the simulator's inspection API, `herald serve`) for the commands.
struct JSONAPIClient {
    let baseURL: String
    let client: HTTP1Client
    let authorization: String?

    init(baseURL: String, authorization: String? = nil) throws {
        self.baseURL = baseURL
        do {
            client = try HTTP1Client(url: baseURL)
        } catch {
            throw UsageError("bad URL \(baseURL): expected http://host:port")
        }
        self.authorization = authorization
    }

    struct Failure: Error, CustomStringConvertible {
        let status: Int
        let message: String
        var description: String { "HTTP \(status): \(message)" }
    }

    /// Sends a request and returns the decoded JSON body (nil for an empty body). Non-2xx answers throw
    /// with the server's error message.
    @discardableResult
    func call(_ method: String, _ path: String, json: Any? = nil, body: [UInt8]? = nil, contentType: String? = nil) async throws -> Any? {
        var headers: HTTPHeaders = ["accept": "application/json"]
        if let authorization { headers.add("authorization", "Bearer \(authorization)") }
        var bytes: [UInt8] = []
        if let json {
            bytes = [UInt8](try JSONSerialization.data(withJSONObject: json))
            headers.add("content-type", "application/json")
        } else if let body {
            bytes = body
            if let contentType { headers.add("content-type", contentType) }
        }
        let response: HTTPResponse
        do {
            response = try await client.send(HTTPRequest(method: method, target: path, headers: headers, body: bytes))
        } catch {
            throw Failure(status: 0, message: "cannot reach \(baseURL) (\(error)); is it running?")
        }
        let decoded = response.body.isEmpty ? nil : try? JSONSerialization.jsonObject(with: Data(response.body), options: [.fragmentsAllowed])
        guard (200..<300).contains(response.status) else {
            let error = (decoded as? [String: Any])?["error"] as? [String: Any]
            let message = (error?["message"] as? String) ?? String(decoding: response.body.prefix(300), as: UTF8.self)
            let field = (error?["field"] as? String).map { " (field: \($0))" } ?? ""
            throw Failure(status: response.status, message: message + field)
        }
        return decoded ?? (response.body.isEmpty ? nil : String(decoding: response.body, as: UTF8.self))
    }

    /// Pretty JSON text for `--json` output.
    static func pretty(_ value: Any?) -> String {
        guard let value, JSONSerialization.isValidJSONObject(value),
              let data = try? JSONSerialization.data(withJSONObject: value, options: [.prettyPrinted, .sortedKeys]) else {
            return value.map { "\($0)" } ?? "null"
        }
        return String(decoding: data, as: UTF8.self)
    }
}
