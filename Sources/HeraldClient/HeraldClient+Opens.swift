import Foundation

extension HeraldClient {
    /// Reports that the user opened the push `pushId`, once per push on this device: ids already
    /// reported (remembered across launches, up to ``Configuration/openHistoryLimit``) are not sent again.
    ///
    /// - Returns: true when this call reported the opening, false when it had already been reported.
    @discardableResult
    public func trackOpen(pushId: String) async throws -> Bool {
        guard !pushId.isEmpty else {
            throw HeraldClientError.invalidArgument(name: "pushId", reason: "it is empty")
        }
        if openHistory.contains(pushId) { return false }
        if let running = openReports[pushId] {
            try await running.value
            return false
        }
        let report = Task { try await self.reportOpen(pushId) }
        openReports[pushId] = report
        defer { openReports[pushId] = nil }
        try await report.value
        return true
    }

    /// Reports the opening of a push Herald sent; pushes without Herald's push id are not reported.
    /// - Returns: true when this call reported the opening.
    @discardableResult
    public func trackOpen(_ notification: PushNotification) async throws -> Bool {
        guard let pushId = notification.heraldPushId else { return false }
        return try await trackOpen(pushId: pushId)
    }

    /// Whether the opening of `pushId` has been reported from this device.
    public func hasReportedOpen(pushId: String) -> Bool {
        openHistory.contains(pushId)
    }

    private func reportOpen(_ pushId: String) async throws {
        let body: JSONValue = ["pushId": .string(pushId), "installationId": .string(installationId)]
        _ = try await sender.send("POST", "/v1/opens", body: try encode(body))
        openHistory.insert(pushId)
        try openHistory.save(to: configuration.storage)
    }
}
