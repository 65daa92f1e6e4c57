import Foundation
import HeraldHTTP
import HeraldJSON

/// What a route handler gets: the request, its path parameters, the caller and the time it arrived.
public struct RequestContext: Sendable {
    public var request: HTTPRequest
    public var parameters: [String: String]
    public var principal: Principal?
    public var now: Date

    public func parameter(_ name: String) -> String { parameters[name] ?? "" }

    /// The app of a master or client key. Routes that reach here were admitted by `Access`.
    public var appID: String {
        get throws {
            guard let id = principal?.appID else { throw APIError.forbidden("This route needs an app's master or client key, not an admin key.") }
            return id
        }
    }

    public var isClient: Bool {
        if case .client = principal?.role { return true }
        return false
    }

    /// The body as a JSON object; 400 when it is not valid JSON or not an object.
    public func jsonObject() throws -> [String: JSON] {
        guard !request.body.isEmpty else { throw APIError.badRequest("The request body is empty; send a JSON object.") }
        let value: JSON
        do { value = try JSON(parsing: request.body) } catch {
            throw APIError(status: 400, code: "invalid_json", message: "The body is not valid JSON: \(error.description).")
        }
        guard case .object(let o) = value else { throw APIError(status: 400, code: "invalid_json", message: "The body must be a JSON object.") }
        return o
    }

    public func query(_ name: String) -> String? { request.queryValue(name) }

    public func intQuery(_ name: String, default value: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text = query(name) else { return value }
        guard let n = Int(text), range.contains(n) else {
            throw APIError(status: 400, code: "invalid_query", message: "\(name) must be an integer in \(range.lowerBound)...\(range.upperBound).", field: name)
        }
        return n
    }
}

/// Response helpers.
extension HTTPResponse {
    static func json(_ status: Int, _ value: JSON, headers: HTTPHeaders = [:]) -> HTTPResponse {
        var h = headers
        h.set("content-type", "application/json")
        return HTTPResponse(status: status, headers: h, body: value.bytes)
    }

    /// A value already in HeraldJSON's model, written as it stands (its members in their order).
    static func json(_ status: Int, value: JSONValue, headers: HTTPHeaders = [:]) -> HTTPResponse {
        json(status, bytes: value.jsonBytes(), headers: headers)
    }

    /// A body already written as JSON.
    static func json(_ status: Int, bytes: [UInt8], headers: HTTPHeaders = [:]) -> HTTPResponse {
        var h = headers
        h.set("content-type", "application/json")
        return HTTPResponse(status: status, headers: h, body: bytes)
    }

    static func error(_ error: APIError, headers: HTTPHeaders = [:]) -> HTTPResponse {
        json(error.status, error.json, headers: headers)
    }

    static let noContent = HTTPResponse(status: 204)
}
