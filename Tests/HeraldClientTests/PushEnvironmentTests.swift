import Foundation
import Testing
@testable import HeraldClient

@Suite struct PushEnvironmentTests {
    /// A profile as Xcode embeds it: DER signature bytes around an XML property list.
    func profile(apsEnvironment: String?) -> Data {
        let entitlement = apsEnvironment.map { "<key>aps-environment</key><string>\($0)</string>" } ?? ""
        let plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict>
            <key>AppIDName</key><string>News</string>
            <key>Entitlements</key><dict>\(entitlement)<key>get-task-allow</key><true/></dict>
            </dict></plist>
            """
        return Data([0x30, 0x82, 0x1f, 0x00, 0x06, 0x09, 0x2a, 0x86]) + Data(plist.utf8) + Data([0xa0, 0x82, 0x00, 0x01])
    }

    @Test func developmentProfilesMeanSandboxTokens() {
        #expect(PushEnvironment.fromProvisioningProfile(profile(apsEnvironment: "development")) == .sandbox)
    }

    @Test func distributionProfilesMeanProductionTokens() {
        #expect(PushEnvironment.fromProvisioningProfile(profile(apsEnvironment: "production")) == .production)
    }

    @Test func aProfileWithoutPushOrUnreadableSaysNothing() {
        #expect(PushEnvironment.fromProvisioningProfile(profile(apsEnvironment: nil)) == nil)
        #expect(PushEnvironment.fromProvisioningProfile(Data("garbage".utf8)) == nil)
    }

    @Test func aBundleWithoutAProfileIsAnAppStoreBuild() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let bundle = try #require(Bundle(path: directory.url.path))
        #expect(PushEnvironment.detect(in: bundle) == .production)
    }

    @Test func aBundleWithADevelopmentProfileIsSandbox() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try profile(apsEnvironment: "development").write(to: directory.url.appendingPathComponent("embedded.mobileprovision"))
        let bundle = try #require(Bundle(path: directory.url.path))
        #expect(PushEnvironment.detect(in: bundle) == .sandbox)
    }
}
