import Foundation
import APNSClient

/// What the process around the service (`ProviderServer`, with its built-in simulator) needs beyond the REST
/// API, as operations of the service: the first start's default app, opens seen by simulated devices, and
/// APNs connection metrics.
extension HeraldService {
    /// The app a first start creates so the whole loop works at once. Its keys are shown once.
    public struct FirstApp: Sendable {
        public var appID: String
        public var masterKey: String
        public var clientKey: String
    }

    /// A token (.p8) signing key: key id, team id, PEM.
    public typealias SigningKey = (keyID: String, teamID: String, privateKeyPEM: String)

    /// Creates "Default app" for `topic` with a token credential for both environments, unless an app already
    /// exists (then nil: a start that finds apps is not a first start, and `makeKey` is not called).
    public func createFirstApp(topic: String, makeKey: () throws -> SigningKey) async throws -> FirstApp? {
        guard try await services.apps.list().isEmpty else { return nil }
        let key = try makeKey()
        let credential = try CredentialInput.token(keyID: key.keyID, teamID: key.teamID, key: key.privateKeyPEM)
        let created = try await services.apps.create(try AppInput(name: "Default app", topic: topic))
        for environment in CredentialsService.environments {
            _ = try await services.credentials.put(appID: created.app.id, environment: environment, credential)
        }
        return FirstApp(appID: created.app.id, masterKey: created.masterKey, clientKey: created.clientKey)
    }

    /// A device opened a notification, as a simulated device reports it: Herald's pushes carry their id in the
    /// payload (`herald.pushId`), and the device is known by its token. Other payloads are not Herald's; ignored.
    public func recordDeviceOpen(customPayload: String?, deviceToken: String) async throws {
        guard let text = customPayload, let pushID = try JSON(parsing: text)["herald"]?["pushId"]?.stringValue else { return }
        _ = try await services.opens.recordFromDevice(pushID: pushID, deviceToken: deviceToken)
    }

    /// Counts the APNs client's connections, requests and answers in this service's metrics.
    public var apnsMetricsObserver: any APNSClientObserver { APNSMetricsObserver(metrics: metrics) }
}
