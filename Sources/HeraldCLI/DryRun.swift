import Foundation
import APNSCore
import APNSClient

/// `--dry-run`: the exact requests, as they would go on the wire, without connecting.
enum DryRun {
    static func print(_ notifications: [APNSNotification], configuration: APNSClient.Configuration) throws {
        var authorization: String?
        if case let .token(key) = configuration.credentials {
            authorization = try ProviderTokenSource(signingKey: key).authorization()
        }
        let scheme = configuration.cleartext ? "http" : "https"
        for n in notifications {
            let p = try n.prepare()
            Swift.print("POST \(scheme)://\(configuration.environment.authority)\(p.path)")
            for h in p.headers(authority: configuration.environment.authority, authorization: authorization) where !h.name.hasPrefix(":") {
                Swift.print("\(h.name): \(h.value)")
            }
            Swift.print("")
            Swift.print(String(decoding: p.body, as: UTF8.self))
            Swift.print("")
        }
    }
}
