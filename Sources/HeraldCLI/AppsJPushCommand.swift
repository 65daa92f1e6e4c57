import Foundation

// MARK: - herald apps jpush

enum AppsJPushCommand: CommandGroup {
    static let name = "apps jpush"
    static let abstract = "Set, show or remove an app's JPush App Key and Master Secret (for JPush's server SDKs)."
    static let discussion = """
    JPush's server SDKs authenticate with HTTP Basic appKey:masterSecret. Store the pair and they work
    against Herald unchanged once their api, device and report hosts point at it (docs/migrate-from-jpush.md).
    Without it they can use the Herald app id and master key as appKey and masterSecret.
    """
    static var subcommands: [Command.Type] { [AppsJPushSetCommand.self, AppsJPushShowCommand.self, AppsJPushDeleteCommand.self] }
}

enum AppsJPushSetCommand: Command {
    static let name = "apps jpush set"
    static let abstract = "Store the app's JPush App Key and Master Secret (sealed at rest; never shown again)."
    static let usage = "--app <id> --app-key <key> [--master-secret-file <file>] --api-key <admin or master>"
    static let discussion = """
    The secret is read from --master-secret-file, else from the environment variable JPUSH_MASTER_SECRET,
    so it does not appear in the process list. Setting it again replaces the pair.
    """
    static let options = ServerAccess.options + [
        .value("app", "id", "The app."), .value("app-key", "key", "JPush App Key (24 hex digits)."),
        .value("master-secret-file", "file", "A file holding the JPush Master Secret (default: env JPUSH_MASTER_SECRET)."),
    ]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let app = try args.required("app"), appKey = try args.required("app-key")
        let secret: String
        if let file = args.value("master-secret-file") {
            guard let data = FileManager.default.contents(atPath: file) else { throw UsageError("cannot read \(file)") }
            secret = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        } else if let env = ProcessInfo.processInfo.environment["JPUSH_MASTER_SECRET"] {
            secret = env
        } else {
            throw UsageError("give --master-secret-file or set JPUSH_MASTER_SECRET")
        }
        let reply = try await ServerAccess.api(args).call("PUT", "/v1/apps/\(app)/jpush", json: ["appKey": appKey, "masterSecret": secret])
        ServerAccess.output(args, reply) { "JPush keys saved for \(app): App Key \(ServerAccess.field($0, "appKey")), Master Secret \(ServerAccess.field($0, "masterSecretHint"))" }
        return 0
    }
}

enum AppsJPushShowCommand: Command {
    static let name = "apps jpush show"
    static let abstract = "Show the app's JPush App Key and the first characters of its Master Secret."
    static let usage = "--app <id> --api-key <admin or master>"
    static let options = ServerAccess.options + [.value("app", "id", "The app.")]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let reply = try await ServerAccess.api(args).call("GET", "/v1/apps/\(try args.required("app"))/jpush")
        ServerAccess.output(args, reply) { "App Key \(ServerAccess.field($0, "appKey"))  Master Secret \(ServerAccess.field($0, "masterSecretHint"))  updated \(ServerAccess.field($0, "updatedAt"))" }
        return 0
    }
}

enum AppsJPushDeleteCommand: Command {
    static let name = "apps jpush delete"
    static let abstract = "Remove the app's JPush keys (JPush SDKs then need the Herald app id and master key)."
    static let usage = "--app <id> --api-key <admin or master>"
    static let options = ServerAccess.options + [.value("app", "id", "The app.")]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        try await ServerAccess.api(args).call("DELETE", "/v1/apps/\(try args.required("app"))/jpush")
        print("deleted")
        return 0
    }
}
