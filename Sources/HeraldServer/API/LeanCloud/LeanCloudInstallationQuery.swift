import Foundation
import HeraldHTTP
import HeraldStore

/// `GET /1.1/installations` (and `/1.1/classes/_Installation`) with LeanCloud's query parameters: `where`, `order`,
/// `limit` (default 100, at most 1000), `skip`, `count=1`, `keys`. The registry is read in pages of `pageSize` in
/// Herald's order and each page is checked against `where` (narrowed in the store by a top-level channel or
/// device token), so memory stays bounded whatever the registry's size. Without `order`, reading stops once
/// `skip + limit` rows matched; with `order`, at most `maxSorted` matching rows are sorted, and a query matching
/// more is refused with a request to narrow it.
struct LeanCloudInstallationQuery {
    var query: LeanCloudWhere?
    var order: [(key: String, descending: Bool)] = []
    var limit = 100
    var skip = 0
    var count = false
    var keys: Set<String>?

    static let maxLimit = 1000
    static let maxSkip = 10_000
    static let maxSorted = 10_000
    static let pageSize = 1000

    static func parse(_ ctx: RequestContext) throws -> LeanCloudInstallationQuery {
        var q = LeanCloudInstallationQuery()
        if let text = ctx.query("where"), !text.isEmpty {
            let json: JSON
            do { json = try JSON(parsing: Array(text.utf8)) } catch {
                throw APIError(status: 400, code: "invalid_json", message: "where is not valid JSON: \(error).", field: "where")
            }
            q.query = try LeanCloudWhere.parse(json)
        }
        if let text = ctx.query("order"), !text.isEmpty {
            q.order = text.split(separator: ",").map { part in
                let key = part.trimmingSpaces
                return key.hasPrefix("-") ? (String(key.dropFirst()), true) : (key, false)
            }
        }
        q.limit = try ctx.intQuery("limit", default: 100, range: 0...maxLimit)
        q.skip = try ctx.intQuery("skip", default: 0, range: 0...maxSkip)
        q.count = ctx.query("count") == "1" || ctx.query("count") == "true"
        if let text = ctx.query("keys"), !text.isEmpty { q.keys = Set(text.split(separator: ",").map { $0.trimmingSpaces }) }
        return q
    }

    /// The matching installations in LeanCloud's shape (the page asked for) and, with `count`, how many match.
    func run(_ installations: InstallationsService, appID: String) async throws -> (results: [[String: JSON]], count: Int?) {
        var narrow = InstallationQuery(limit: Self.pageSize)
        for part in query?.conjuncts ?? [] {
            guard case .field(let key, .equals(let value)) = part, let text = value.stringValue else { continue }
            if key == "channels" && narrow.tag == nil { narrow.tag = text }
            if key == "deviceToken" && narrow.deviceToken == nil { narrow.deviceToken = text }
        }
        let wanted = skip + limit
        var matched: [[String: JSON]] = []
        var total = 0
        while true {
            let page = try await installations.query(appID: appID, narrow)
            for record in page.items {
                let object = LeanCloudInstallation.json(record)
                guard query?.matches(object) ?? true else { continue }
                total += 1
                if !order.isEmpty {
                    guard total <= Self.maxSorted else {
                        throw ServiceError.invalid("order", "More than \(Self.maxSorted) installations match; narrow where (for example by channels) to sort them.")
                    }
                    matched.append(object)
                } else if matched.count < wanted {
                    matched.append(object)
                }
            }
            guard let cursor = page.next, count || !order.isEmpty || matched.count < wanted else { break }
            narrow.afterSeq = cursor
        }
        if !order.isEmpty { matched.sort(by: precedes) }
        let results = matched.dropFirst(skip).prefix(limit).map { LeanCloudInstallation.select($0, keys: keys) }
        return (Array(results), count ? total : nil)
    }

    /// LeanCloud's `order`: keys in turn, `-key` descending; a missing value sorts first.
    private func precedes(_ a: [String: JSON], _ b: [String: JSON]) -> Bool {
        for (key, descending) in order {
            let x = a[key] ?? .null, y = b[key] ?? .null
            if x == y { continue }
            let ascending: Bool
            if x.isNull { ascending = true } else if y.isNull { ascending = false } else if let o = LeanCloudWhere.order(x, y), o != .orderedSame {
                ascending = o == .orderedAscending
            } else { continue }
            return descending ? !ascending : ascending
        }
        return false
    }
}
