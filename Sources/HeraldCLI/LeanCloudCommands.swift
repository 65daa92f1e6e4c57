import Foundation

// MARK: - herald apps leancloud

/// The app's LeanCloud keys (`PUT/GET/DELETE /v1/apps/{appId}/leancloud`), which LeanCloud's SDKs authenticate with
/// once the app's bound API domain points at Herald (docs/migrate-from-leancloud.md).
enum AppsLeanCloudCommand: CommandGroup {
    static let name = "apps leancloud"
    static let abstract = "Set, show or remove an app's LeanCloud App ID, App Key and Master Key (for the /1.1 routes)."
    static let discussion = """
    The keys are the ones LeanCloud's console shows under Settings > App keys. Herald seals them at rest and never
    shows them again; `show` prints the App ID and the keys' first characters.
    """
    static var subcommands: [Command.Type] { [AppsLeanCloudSetCommand.self, AppsLeanCloudShowCommand.self, AppsLeanCloudDeleteCommand.self] }
}

enum AppsLeanCloudSetCommand: Command {
    static let name = "apps leancloud set"
    static let abstract = "Set the app's LeanCloud App ID, App Key and Master Key."
    static let usage = "--app <id> --leancloud-app-id <App ID> --app-key <App Key> --master-key <Master Key> --api-key <admin or master>"
    static let discussion = """
    The keys may come from the environment instead of the command line (which other users of the machine can see):
    LEANCLOUD_APP_KEY and LEANCLOUD_MASTER_KEY.

    EXAMPLE:
      LEANCLOUD_APP_KEY=... LEANCLOUD_MASTER_KEY=... herald apps leancloud set --app <id> --leancloud-app-id pGtcvsDq7zWJmXFo-gzGzoHsz
    """
    static let options = ServerAccess.options + [
        .value("app", "id", "The Herald app."),
        .value("leancloud-app-id", "id", "LeanCloud's App ID (what the SDKs send as X-LC-Id)."),
        .value("app-key", "key", "LeanCloud's App Key (or env LEANCLOUD_APP_KEY)."),
        .value("master-key", "key", "LeanCloud's Master Key (or env LEANCLOUD_MASTER_KEY)."),
    ]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let env = ProcessInfo.processInfo.environment
        guard let appKey = args.value("app-key") ?? env["LEANCLOUD_APP_KEY"] else { throw UsageError("give --app-key or set LEANCLOUD_APP_KEY") }
        guard let masterKey = args.value("master-key") ?? env["LEANCLOUD_MASTER_KEY"] else { throw UsageError("give --master-key or set LEANCLOUD_MASTER_KEY") }
        let body: [String: Any] = ["appId": try args.required("leancloud-app-id"), "appKey": appKey, "masterKey": masterKey]
        let reply = try await ServerAccess.api(args).call("PUT", "/v1/apps/\(try args.required("app"))/leancloud", json: body)
        ServerAccess.output(args, reply) { AppsLeanCloudShowCommand.summary($0) }
        return 0
    }
}

enum AppsLeanCloudShowCommand: Command {
    static let name = "apps leancloud show"
    static let abstract = "Show the app's LeanCloud App ID and key hints."
    static let usage = "--app <id> --api-key <admin or master>"
    static let options = ServerAccess.options + [.value("app", "id", "The Herald app.")]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let reply = try await ServerAccess.api(args).call("GET", "/v1/apps/\(try args.required("app"))/leancloud")
        ServerAccess.output(args, reply) { summary($0) }
        return 0
    }

    static func summary(_ value: Any?) -> String {
        let hints = (value as? [String: Any])?["hints"] as? [String: Any]
        return "LeanCloud App ID \(ServerAccess.field(value, "appId"))  App Key \(ServerAccess.field(hints, "appKey"))  Master Key \(ServerAccess.field(hints, "masterKey"))"
    }
}

enum AppsLeanCloudDeleteCommand: Command {
    static let name = "apps leancloud delete"
    static let abstract = "Remove the app's LeanCloud keys; requests signed with them are refused from then on."
    static let usage = "--app <id> --api-key <admin or master>"
    static let options = ServerAccess.options + [.value("app", "id", "The Herald app.")]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        try await ServerAccess.api(args).call("DELETE", "/v1/apps/\(try args.required("app"))/leancloud")
        print("deleted")
        return 0
    }
}
