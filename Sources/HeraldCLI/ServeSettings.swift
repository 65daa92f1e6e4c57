import Foundation
import HeraldServer
import HeraldProvider

/// The settings `herald serve` reads itself, plus the service's own (`service`). Both are set from one list of
/// keys, `ServeCommand.table`.
struct ServeSettings {
    var host = "127.0.0.1"
    var port = 8080
    var tlsCertificate: String?
    var tlsKey: String?
    var tlsReloadInterval: Duration? = .seconds(10)
    var dataDirectory = "herald-data"
    var logFormat: Log.Format?
    var simulatorEnabled = true
    var simulatorPort = 0
    var simulatorInspectionPort = 8090
    var simulatorAcceptAll = false
    var simulatorUnregisteredRate: Double = 0
    var defaultBundleID = "com.example.herald"
    var apns = APNSClientTransport.Endpoints.apple
    var service = HeraldConfiguration()

    var provider: ProviderServer.Settings {
        var s = ProviderServer.Settings()
        s.host = host
        s.port = port
        if let tlsCertificate, let tlsKey { s.tls = .init(certificate: tlsCertificate, key: tlsKey) }
        s.tlsReloadInterval = tlsReloadInterval
        s.dataDirectory = dataDirectory
        s.simulatorEnabled = simulatorEnabled
        s.simulatorPort = simulatorPort
        s.simulatorInspectionPort = simulatorInspectionPort
        s.simulatorAcceptAll = simulatorAcceptAll
        s.simulatorUnregisteredRate = simulatorUnregisteredRate
        s.defaultBundleID = defaultBundleID
        s.apns = apns
        s.service = service
        return s
    }

    /// Applies dotted keys in the table's order (so with several bad values the same one is reported every
    /// time); unknown keys and bad values are usage errors naming the key.
    init(_ values: [String: String]) throws {
        let table = ServeCommand.table
        let known = Set(table.map(\.key))
        if let unknown = values.keys.sorted().first(where: { !known.contains($0) }) {
            throw UsageError("configuration \(unknown): unknown key; known keys: \(table.map(\.key).joined(separator: ", "))")
        }
        for row in table {
            guard let value = values[row.key] else { continue }
            do {
                try row.apply(value, to: &self)
            } catch let e as HeraldConfiguration.Invalid {
                throw UsageError(e.description)
            }
        }
        if (tlsCertificate == nil) != (tlsKey == nil) {
            throw UsageError("configuration http.tlsCertificate and http.tlsKey go together: give both (the certificate chain and its key) for HTTPS, or neither for plain HTTP")
        }
        // The service's own default is relative to the working directory; under `serve` the store follows data.dir.
        if values["store.path"] == nil {
            service.databasePath = URL(fileURLWithPath: dataDirectory).appendingPathComponent("herald.sqlite").path
        }
    }
}
