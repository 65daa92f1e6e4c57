import HeraldStore

/// Opens of pushes: reported by the SDK (push and installation), or by a device that knows only its token
/// (the APNs simulator's report, over HTTP or in-process). Counted once per push and installation.
struct OpensService: Sendable {
    let env: ServiceEnvironment

    enum Report: Sendable, Equatable {
        case installation(pushID: String, installationID: String)
        /// The app's installation holding the token is the one that opened it.
        case deviceToken(pushID: String, deviceToken: String)
    }

    /// Records the open at the service's clock; true the first time this push was opened on this installation.
    func record(appID: String, _ report: Report) async throws -> Bool {
        let now = env.clock.now()
        switch report {
        case let .installation(pushID, installationID):
            do {
                return try await env.store.recordOpen(appID: appID, pushID: pushID, installationID: installationID, now: now)
            } catch StoreError.notFound {
                throw ServiceError.notFound("Push \(pushID) or installation \(installationID)")
            }
        case let .deviceToken(pushID, token):
            let token = try Rules.deviceToken(token, field: "deviceToken")
            let matches = try await env.store.installations(appID: appID, query: InstallationQuery(deviceToken: token, limit: 1))
            guard let installation = matches.first else { throw ServiceError.notFound("Installation with device token \(token)") }
            do {
                return try await env.store.recordOpen(appID: appID, pushID: pushID, installationID: installation.id, now: now)
            } catch StoreError.notFound {
                throw ServiceError.notFound("Push \(pushID)")
            }
        }
    }

    /// An open from a device that does not know its app (the built-in simulator): the push's app.
    func recordFromDevice(pushID: String, deviceToken: String) async throws -> Bool {
        guard let push = try await env.store.push(id: pushID) else { throw ServiceError.notFound("Push \(pushID)") }
        return try await record(appID: push.appID, .deviceToken(pushID: pushID, deviceToken: deviceToken))
    }
}
