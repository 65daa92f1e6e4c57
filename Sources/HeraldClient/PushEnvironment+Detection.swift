import Foundation

extension PushEnvironment {
    /// The environment of this build's device tokens, read from the provisioning profile embedded in the
    /// app: a development profile means sandbox tokens, an ad hoc or enterprise profile production tokens,
    /// and an App Store build (which carries no profile) production tokens.
    ///
    /// Sending a token to the wrong environment fails with BadDeviceToken, the most common reason pushes
    /// silently stop after a build goes to TestFlight; detecting it beats a hand-maintained `#if DEBUG`.
    public static func detect(in bundle: Bundle = .main) -> PushEnvironment {
        guard let url = bundle.url(forResource: "embedded", withExtension: "mobileprovision"),
              let data = try? Data(contentsOf: url) else {
            return .production
        }
        return fromProvisioningProfile(data) ?? .production
    }

    /// The `aps-environment` entitlement of a provisioning profile (the signed file's embedded property
    /// list), or nil when the profile grants no push entitlement or cannot be read.
    public static func fromProvisioningProfile(_ data: Data) -> PushEnvironment? {
        // The profile is CMS-signed DER wrapping an XML property list; the list itself is plain text.
        guard let start = data.range(of: Data("<?xml".utf8)),
              let end = data.range(of: Data("</plist>".utf8), in: start.lowerBound..<data.endIndex) else {
            return nil
        }
        let plist = data[start.lowerBound..<end.upperBound]
        guard let root = try? PropertyListSerialization.propertyList(from: Data(plist), format: nil) as? [String: Any],
              let entitlements = root["Entitlements"] as? [String: Any],
              let environment = entitlements["aps-environment"] as? String else {
            return nil
        }
        switch environment {
        case "development": return .sandbox
        case "production": return .production
        default: return nil
        }
    }
}
