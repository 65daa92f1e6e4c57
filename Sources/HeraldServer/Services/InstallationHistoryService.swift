import Foundation
import HeraldStore

/// The pushes an installation was targeted by, newest first, with what became of each delivery: the
/// console's answer to "I got nothing".
struct InstallationHistoryService: Sendable {
    let env: ServiceEnvironment

    struct Entry: Sendable {
        var record: InstallationDeliveryRecord
        /// What the push said (its alert's title, else its body), for a person scanning the list.
        var summary: String?
        /// The apns-id the delivery carried, once APNs accepted it.
        var apnsID: UUID?
    }

    /// A page of the installation's deliveries with ids below `before` (nil: the newest). The cursor is the
    /// last delivery's id.
    func deliveries(appID: String, id: String, before: Int64?, limit: Int) async throws -> Page<Entry, Int64> {
        let installation = try await InstallationsService(env: env).get(appID: appID, id: id)
        let rows = try await env.store.installationDeliveries(appID: appID, seq: installation.seq, beforeID: before, limit: limit)
        let entries = rows.map { r in
            Entry(record: r, summary: Self.summary(ofRequest: r.pushRequest),
                  apnsID: r.state == .sent ? stableAPNsID(pushID: r.pushID, installationID: installation.id) : nil)
        }
        return Page(entries, limit: limit) { $0.record.deliveryID }
    }

    /// Longest summary returned; an alert body can be long, the list shows one line.
    static let summaryLength = 120

    /// The alert's title, else its body (or an alert given as a string), else the first localized variant's;
    /// nil for a push without an alert (background, badge only).
    static func summary(ofRequest text: String) -> String? {
        guard let content = (try? JSON(parsing: text))?["content"] else { return nil }
        let localized = content["localized"]?.objectValue.flatMap { o in o.keys.min().flatMap { o[$0] } }
        for alert in [content["alert"], localized].compactMap({ $0 }) {
            let line = alert.stringValue ?? alert["title"]?.stringValue ?? alert["body"]?.stringValue
            if let line, !line.isEmpty { return String(line.prefix(summaryLength)) }
        }
        return nil
    }
}
