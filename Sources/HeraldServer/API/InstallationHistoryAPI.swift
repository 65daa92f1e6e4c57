import Foundation
import APNSCore
import HeraldHTTP
import HeraldStore

/// An installation's deliveries over REST (`InstallationHistoryService`): the console's device page.
struct InstallationHistoryAPI {
    let history: InstallationHistoryService

    var routes: [Route] {
        [Route("GET", "/v1/installations/{id}/deliveries", .master,
               "The pushes an installation was targeted by, newest first, with each delivery's outcome; cursor pagination.", handler: list)]
    }

    func list(_ ctx: RequestContext) async throws -> HTTPResponse {
        let before = try ctx.query("cursor").map { c -> Int64 in
            guard let n = Int64(c), n > 0 else { throw APIError.invalidQuery("cursor", "cursor must be a nextCursor value from a previous page.") }
            return n
        }
        let page = try await history.deliveries(appID: try ctx.appID, id: ctx.parameter("id"), before: before,
                                                limit: try ctx.intQuery("limit", default: 20, range: 1...100))
        return .json(200, ["deliveries": .array(page.items.map(Self.json)), "nextCursor": .optional(page.next.map(String.init))])
    }

    static func json(_ e: InstallationHistoryService.Entry) -> JSON {
        let r = e.record
        return ["pushId": .string(r.pushID), "pushStatus": .string(r.pushStatus.rawValue), "pushCreatedAt": ISO8601.json(r.pushCreatedAt),
                "summary": .optional(e.summary), "state": .string(r.state.name), "attempts": .int(r.attempts),
                "status": .optional(r.status), "reason": .optional(r.reason), "apnsId": .optional(e.apnsID?.lowercasedString),
                "updatedAt": ISO8601.json(r.updatedAt)]
    }
}
