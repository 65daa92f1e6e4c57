import Foundation

extension HeraldClient {
    /// One pass: a full create-or-update when the server has not acknowledged anything yet or the
    /// installation is due for revalidation; otherwise a PATCH of the changed fields and a tags
    /// add/remove. A 404 on either (installation deleted on the server) falls back to the full form.
    func performSync() async throws {
        defer { syncTask = nil }
        do {
            try await syncPass()
        } catch HeraldClientError.rejected(let status, let code, let message, let field) where status == 400 || status == 422 {
            discardRejectedChange(field: field)
            throw HeraldClientError.rejected(status: status, code: code, message: message, field: field)
        }
    }

    /// A change the server refuses as invalid would be refused again on every later sync: it is dropped
    /// (the field goes back to what the server holds) so the other changes keep flowing. Fields the client
    /// fills in itself (locale, versions, topic, environment) are left alone: they come from the device
    /// and the configuration, and the error says which one to fix.
    private func discardRejectedChange(field: String?) {
        let root = field?.split(whereSeparator: { $0 == "." || $0 == "[" }).first.map(String.init)
        let known = state.acknowledged ?? InstallationFields()
        switch root {
        case "tags", "add", "remove": state.wanted.tags = known.tags
        case "alias": state.wanted.alias = known.alias
        case "userId": state.wanted.userId = known.userId
        case "properties": state.wanted.properties = known.properties
        case "badge": state.wanted.badge = nil
        case "deviceToken": state.wanted.deviceToken = known.deviceToken
        default: return
        }
        try? persist()
    }

    private func syncPass() async throws {
        let wanted = state.wanted
        guard let acknowledged = state.acknowledged, !revalidationDue else {
            try await createOrUpdate(wanted)
            return
        }
        let patch = wanted.patch(from: acknowledged)
        if !patch.isEmpty {
            let response = try await sender.send(
                "PATCH", "/v1/installations/\(pathComponent(installationId))", body: try encode(patch), alsoAccept: [404])
            if response.status == 404 { return try await createOrUpdate(wanted) }
            installation = try? decodeInstallation(response.body)
            var confirmed = wanted
            confirmed.tags = acknowledged.tags
            acknowledge(confirmed)
        }
        let added = wanted.tagSet.subtracting(acknowledged.tagSet)
        let removed = acknowledged.tagSet.subtracting(wanted.tagSet)
        if !added.isEmpty || !removed.isEmpty {
            let body: JSONValue = ["add": .array(added.sorted().map(JSONValue.string)),
                                   "remove": .array(removed.sorted().map(JSONValue.string))]
            let response = try await sender.send(
                "POST", "/v1/installations/\(pathComponent(installationId))/tags", body: try encode(body), alsoAccept: [404])
            if response.status == 404 { return try await createOrUpdate(wanted) }
            installation = try? decodeInstallation(response.body)
            var confirmed = state.acknowledged ?? acknowledged
            confirmed.tags = wanted.tags
            acknowledge(confirmed)
        }
    }

    private func createOrUpdate(_ wanted: InstallationFields) async throws {
        var body = wanted.jsonObject
        body["installationId"] = .string(installationId)
        let response = try await sender.send("POST", "/v1/installations", body: try encode(.object(body)))
        acknowledge(wanted)
        installation = try? decodeInstallation(response.body)
    }

    /// Records what the server confirmed. The badge is a one-off command, not state: once delivered it
    /// is forgotten, so a later full update never resets a count the server has raised since.
    private func acknowledge(_ confirmed: InstallationFields) {
        var confirmed = confirmed
        if confirmed.badge != nil {
            if state.wanted.badge == confirmed.badge { state.wanted.badge = nil }
            confirmed.badge = nil
        }
        state.acknowledged = confirmed
        state.lastSyncedAt = configuration.now()
        // The server already holds the change; a storage failure here only means it is sent once more.
        try? persist()
    }

    func encode(_ value: JSONValue) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try encoder.encode(value)
    }

    private func encode(_ object: [String: JSONValue]) throws -> Data {
        try encode(.object(object))
    }

    private func decodeInstallation(_ body: Data) throws -> Installation {
        try JSONDecoder().decode(Installation.self, from: body)
    }
}
