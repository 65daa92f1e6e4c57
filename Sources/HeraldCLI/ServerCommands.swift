import Foundation

/// What the commands that talk to a running `herald serve` share: where it is and which key to use.
enum ServerAccess {
    static let options: [Option] = [
        .value("server", "url", "The server (default http://127.0.0.1:8080, or env HERALD_URL)."),
        .value("api-key", "key", "Admin or app master key (or env HERALD_KEY)."),
        .flag("json", "Print the server's JSON."),
    ]

    static func api(_ args: ParsedArguments) throws -> JSONAPIClient {
        let env = ProcessInfo.processInfo.environment
        guard let key = args.value("api-key") ?? env["HERALD_KEY"] else {
            throw UsageError("give --api-key (the admin key for apps, an app's master key for the rest) or set HERALD_KEY")
        }
        return try JSONAPIClient(baseURL: args.value("server") ?? env["HERALD_URL"] ?? "http://127.0.0.1:8080", authorization: key)
    }

    /// Prints JSON with --json, otherwise `summary` of it.
    static func output(_ args: ParsedArguments, _ value: Any?, summary: (Any?) -> String) {
        print(args.has("json") ? JSONAPIClient.pretty(value) : summary(value))
    }

    static func field(_ value: Any?, _ key: String) -> String {
        guard let v = (value as? [String: Any])?[key], !(v is NSNull) else { return "-" }
        return "\(v)"
    }
}

/// A command group whose subcommands are listed in its help.
protocol CommandGroup: Command {}
extension CommandGroup {
    static var options: [Option] { [] }
    static var usage: String { "<subcommand> [options]" }
    static func run(_ args: ParsedArguments) async throws -> Int32 {
        print(helpText())
        return 64
    }
}

// MARK: - herald apps

enum AppsCommand: CommandGroup {
    static let name = "apps"
    static let abstract = "Create, list and manage apps and their keys (admin key)."
    static var subcommands: [Command.Type] { [AppsListCommand.self, AppsCreateCommand.self, AppsRotateCommand.self, AppsDeleteCommand.self, AppsLeanCloudCommand.self, AppsJPushCommand.self] }
}

enum AppsListCommand: Command {
    static let name = "apps list"
    static let abstract = "List apps."
    static let usage = "--api-key <admin>"
    static let options = ServerAccess.options

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let reply = try await ServerAccess.api(args).call("GET", "/v1/apps")
        ServerAccess.output(args, reply) { value in
            let apps = (value as? [String: Any])?["apps"] as? [[String: Any]] ?? []
            return apps.isEmpty ? "no apps" : apps.map { "\(ServerAccess.field($0, "id"))  \(ServerAccess.field($0, "name"))  topic \(ServerAccess.field($0, "topic"))" }.joined(separator: "\n")
        }
        return 0
    }
}

enum AppsCreateCommand: Command {
    static let name = "apps create"
    static let abstract = "Create an app; prints its master and client keys once."
    static let usage = "--name <name> --topic <bundle-id> [--time-zone Asia/Shanghai] --api-key <admin>"
    static let options = ServerAccess.options + [
        .value("name", "text", "App name."), .value("topic", "bundle-id", "Default apns-topic (the bundle id)."),
        .value("time-zone", "zone", "Default time zone for local-time delivery (IANA name)."),
    ]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        var body: [String: Any] = ["name": try args.required("name")]
        if let t = args.value("topic") { body["topic"] = t }
        if let z = args.value("time-zone") { body["defaultTimeZone"] = z }
        let reply = try await ServerAccess.api(args).call("POST", "/v1/apps", json: body)
        ServerAccess.output(args, reply) { value in
            let keys = (value as? [String: Any])?["keys"] as? [String: Any]
            return """
            app \(ServerAccess.field(value, "id")) created
              master key (server side; shown once): \(ServerAccess.field(keys, "master"))
              client key (embed in the app; shown once): \(ServerAccess.field(keys, "client"))
            """
        }
        return 0
    }
}

enum AppsRotateCommand: Command {
    static let name = "apps rotate-key"
    static let abstract = "Issue a new master or client key for an app and revoke the old one."
    static let usage = "--app <id> --scope master|client --api-key <admin or master>"
    static let options = ServerAccess.options + [.value("app", "id", "The app."), .value("scope", "master|client", "Which key.")]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let scope = try args.required("scope")
        guard ["master", "client"].contains(scope) else { throw UsageError("--scope must be master or client") }
        let reply = try await ServerAccess.api(args).call("POST", "/v1/apps/\(try args.required("app"))/keys/\(scope)/rotate")
        ServerAccess.output(args, reply) { "new \(scope) key (shown once): \(ServerAccess.field($0, "key"))" }
        return 0
    }
}

enum AppsDeleteCommand: Command {
    static let name = "apps delete"
    static let abstract = "Delete an app and all its data."
    static let usage = "--app <id> --api-key <admin>"
    static let options = ServerAccess.options + [.value("app", "id", "The app.")]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        try await ServerAccess.api(args).call("DELETE", "/v1/apps/\(try args.required("app"))")
        print("deleted")
        return 0
    }
}

// MARK: - herald credentials

enum CredentialsCommand: CommandGroup {
    static let name = "credentials"
    static let abstract = "Upload, list and delete an app's APNs credentials (stored encrypted, never shown)."
    static var subcommands: [Command.Type] { [CredentialsSetCommand.self, CredentialsListCommand.self, CredentialsDeleteCommand.self] }
}

enum CredentialsSetCommand: Command {
    static let name = "credentials set"
    static let abstract = "Upload a .p8 key (token auth) or a certificate (.p12 or PEM) for sandbox or production."
    static let usage = "--app <id> --environment sandbox|production (--key AuthKey.p8 --key-id K --team-id T | --cert file [--passphrase P])"
    static let options = ServerAccess.options + [
        .value("app", "id", "The app."), .value("environment", "env", "sandbox or production."),
        .value("key", "file", "A .p8 signing key."), .value("key-id", "id", "Its key id."), .value("team-id", "id", "Your team id."),
        .value("cert", "file", "A .p12, or a PEM with certificate and key."), .value("cert-key", "file", "The key PEM when not in --cert."),
        .value("passphrase", "text", "Passphrase of the .p12 or encrypted key."),
    ]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let app = try args.required("app"), environment = try args.required("environment")
        func read(_ path: String) throws -> Data {
            guard let d = FileManager.default.contents(atPath: path) else { throw UsageError("cannot read \(path)") }
            return d
        }
        var body: [String: Any]
        if let key = args.value("key") {
            body = ["type": "token", "keyId": try args.required("key-id"), "teamId": try args.required("team-id"),
                    "key": String(decoding: try read(key), as: UTF8.self)]
        } else if let cert = args.value("cert") {
            body = ["type": "certificate"]
            if cert.hasSuffix(".p12") || cert.hasSuffix(".pfx") {
                body["p12"] = try read(cert).base64EncodedString()
            } else {
                let pem = String(decoding: try read(cert), as: UTF8.self)
                body["certificate"] = pem
                body["privateKey"] = try args.value("cert-key").map { String(decoding: try read($0), as: UTF8.self) } ?? pem
            }
            if let p = args.value("passphrase") { body["passphrase"] = p }
        } else {
            throw UsageError("give --key with --key-id and --team-id, or --cert")
        }
        let reply = try await ServerAccess.api(args).call("PUT", "/v1/apps/\(app)/credentials/\(environment)", json: body)
        ServerAccess.output(args, reply) { _ in "\(environment) credential saved for \(app) (stored encrypted)" }
        return 0
    }
}

enum CredentialsListCommand: Command {
    static let name = "credentials list"
    static let abstract = "List an app's credentials (metadata only)."
    static let usage = "--app <id>"
    static let options = ServerAccess.options + [.value("app", "id", "The app.")]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let reply = try await ServerAccess.api(args).call("GET", "/v1/apps/\(try args.required("app"))/credentials")
        print(JSONAPIClient.pretty(reply))
        return 0
    }
}

enum CredentialsDeleteCommand: Command {
    static let name = "credentials delete"
    static let abstract = "Delete an app's credential for one environment."
    static let usage = "--app <id> --environment sandbox|production"
    static let options = ServerAccess.options + [.value("app", "id", "The app."), .value("environment", "env", "sandbox or production.")]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        try await ServerAccess.api(args).call("DELETE", "/v1/apps/\(try args.required("app"))/credentials/\(try args.required("environment"))")
        print("deleted")
        return 0
    }
}

// MARK: - herald installations

enum InstallationsCommand: CommandGroup {
    static let name = "installations"
    static let abstract = "Query, import and export the device registry (master key)."
    static var subcommands: [Command.Type] { [InstallationsListCommand.self, InstallationsGetCommand.self, InstallationsImportCommand.self, InstallationsExportCommand.self] }
}

enum InstallationsListCommand: Command {
    static let name = "installations list"
    static let abstract = "List installations, filtered by tag, alias, user id, token or active state."
    static let usage = "[--tag T] [--alias A] [--user-id U] [--token HEX] [--active true|false] [--limit N] [--cursor C]"
    static let options = ServerAccess.options + [
        .value("tag", "tag", "Only this tag."), .value("alias", "alias", "Only this alias."), .value("user-id", "id", "Only this user."),
        .value("token", "hex", "Only this device token."), .value("active", "bool", "true or false."),
        .value("limit", "n", "Page size."), .value("cursor", "c", "Continue from a previous page."),
    ]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        var query: [String] = []
        for (flag, name) in [("tag", "tag"), ("alias", "alias"), ("user-id", "userId"), ("token", "deviceToken"), ("active", "active"),
                             ("limit", "limit"), ("cursor", "cursor")] {
            if let v = args.value(flag) { query.append("\(name)=\(v.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? v)") }
        }
        let reply = try await ServerAccess.api(args).call("GET", "/v1/installations" + (query.isEmpty ? "" : "?" + query.joined(separator: "&")))
        ServerAccess.output(args, reply) { value in
            let object = value as? [String: Any]
            let list = object?["installations"] as? [[String: Any]] ?? []
            var lines = list.map { i in
                "\(ServerAccess.field(i, "id"))  \(ServerAccess.field(i, "deviceToken").prefix(16))…  \(ServerAccess.field(i, "environment"))  tags \((i["tags"] as? [String])?.joined(separator: ",") ?? "")  \((i["active"] as? Bool) == false ? "inactive: \(ServerAccess.field(i, "inactiveReason"))" : "active")"
            }
            if lines.isEmpty { lines = ["no installations"] }
            if let next = object?["nextCursor"] as? String { lines.append("more: --cursor \(next)") }
            return lines.joined(separator: "\n")
        }
        return 0
    }
}

enum InstallationsGetCommand: Command {
    static let name = "installations get"
    static let abstract = "Show one installation."
    static let usage = "--id <installation id>"
    static let options = ServerAccess.options + [.value("id", "id", "Installation id.")]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        print(JSONAPIClient.pretty(try await ServerAccess.api(args).call("GET", "/v1/installations/\(try args.required("id"))")))
        return 0
    }
}

enum InstallationsImportCommand: Command {
    static let name = "installations import"
    static let abstract = "Import installations from JSON lines, CSV or a LeanCloud export (moving a registry in), with progress."
    static let usage = "FILE [--format jsonl|csv|leancloud] [--chunk N]"
    static let discussion = """
    The file is read as it goes up, in chunks (100,000 lines by default, about 10-20 MB), so a large
    registry shows its progress, the command's memory stays flat, and a failure loses nothing already
    imported: running the same import again updates what is there (rows
    match by installationId, then deviceToken). Rejected lines are listed with their line numbers.

    --format leancloud reads LeanCloud's data export of _Installation (one JSON object per line, or
    {"results": [...]}), streamed: iOS rows keep their objectId as their Herald id, so apps are recognised
    when they next register through the LeanCloud routes; rows of other device types are counted as skipped.
    """
    static let options = ServerAccess.options + [
        .value("format", "jsonl|csv|leancloud", "File format (default: from the file name: .csv, else jsonl)."),
        .value("chunk", "n", "Lines (leancloud: rows) per request (default 100000)."),
    ]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard let path = args.positionals.first, FileManager.default.isReadableFile(atPath: path) else {
            throw UsageError("give a readable file: herald installations import FILE")
        }
        let format = args.value("format") ?? (path.hasSuffix(".csv") ? "csv" : "jsonl")
        guard ["csv", "jsonl", "leancloud"].contains(format) else { throw UsageError("--format must be jsonl, csv or leancloud") }
        let chunkSize = max(1, try args.int("chunk") ?? 100_000)
        if format == "leancloud" { return try await importLeanCloud(path: path, args, chunkRows: chunkSize) }
        guard let file = FileHandle(forReadingAtPath: path) else { throw UsageError("give a readable file: herald installations import FILE") }
        defer { try? file.close() }
        let size = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
        let api = try ServerAccess.api(args)
        let showProgress = Console.stderrIsTerminal && !args.has("json")
        var created = 0, updated = 0, failed = 0
        var errors: [String] = []
        let started = Date()
        // The file is read a megabyte at a time and sent a chunk of lines at a time, so the command's memory
        // stays flat however large the file. CSV: every chunk carries the header, and line numbers count it once.
        var header: [UInt8]?
        var body: [UInt8] = [], partial: [UInt8] = []
        var linesRead = 0, chunkLines = 0, chunkStart = 0, bytesRead = 0
        func send() async throws {
            guard chunkLines > 0 else { return }
            let reply = try await api.call("POST", "/v1/installations/import?format=\(format)", body: body,
                                           contentType: format == "csv" ? "text/csv" : "application/x-ndjson") as? [String: Any]
            created += reply?["created"] as? Int ?? 0
            updated += reply?["updated"] as? Int ?? 0
            failed += reply?["failed"] as? Int ?? 0
            for e in reply?["errors"] as? [[String: Any]] ?? [] where errors.count < 20 {
                // The server numbers lines within the chunk (a CSV chunk's header is its line 1).
                let local = e["line"] as? Int ?? 0
                let fileLine = chunkStart + local - (header == nil ? 0 : 1)
                errors.append("line \(fileLine): \(e["message"] ?? "")" + ((e["field"] as? String).map { " (\($0))" } ?? ""))
            }
            body.removeAll(keepingCapacity: true)
            if let header { body += header; body.append(UInt8(ascii: "\n")) }
            chunkStart = linesRead
            chunkLines = 0
        }
        func add(_ line: ArraySlice<UInt8>) async throws {
            linesRead += 1
            if format == "csv" && header == nil {
                header = Array(line)
                body += line; body.append(UInt8(ascii: "\n"))
                chunkStart = linesRead
                return
            }
            body += line; body.append(UInt8(ascii: "\n"))
            chunkLines += 1
            if chunkLines >= chunkSize { try await send() }
        }
        while let data = try file.read(upToCount: 1 << 20), !data.isEmpty {
            bytesRead += data.count
            partial += data
            var lineStart = partial.startIndex
            while let newline = partial[lineStart...].firstIndex(of: UInt8(ascii: "\n")) {
                try await add(partial[lineStart..<newline])
                lineStart = newline + 1
            }
            partial.removeSubrange(..<lineStart)
            if showProgress {
                let rate = Double(linesRead) / max(0.001, Date().timeIntervalSince(started))
                let percent = size > 0 ? bytesRead * 100 / size : 100
                FileHandle.standardError.write(Data("\rread \(percent)% of \(path): \(linesRead) lines (\(Int(rate))/s)".utf8))
            }
        }
        if !partial.isEmpty { try await add(partial[...]) }
        try await send()
        if Console.stderrIsTerminal && !args.has("json") { FileHandle.standardError.write(Data("\n".utf8)) }
        let summary: [String: Any] = ["created": created, "updated": updated, "failed": failed, "errors": errors]
        ServerAccess.output(args, summary) { _ in
            (["created \(created), updated \(updated), failed \(failed)"] + errors.map { "  " + $0 }).joined(separator: "\n")
        }
        return failed == 0 ? 0 : 1
    }
}

enum InstallationsExportCommand: Command {
    static let name = "installations export"
    static let abstract = "Export every installation as JSON lines or CSV to standard output."
    static let usage = "[--format jsonl|csv]"
    static let options = ServerAccess.options + [.value("format", "jsonl|csv", "Output format (default jsonl).")]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let reply = try await ServerAccess.api(args).call("GET", "/v1/installations/export?format=\(args.value("format") ?? "jsonl")")
        if let text = reply as? String { print(text, terminator: text.hasSuffix("\n") ? "" : "\n") } else { print(JSONAPIClient.pretty(reply)) }
        return 0
    }
}

// MARK: - herald push

enum PushCommand: Command {
    static let name = "push"
    static let abstract = "Send a push through `herald serve` to tokens, aliases, tags, a filter or everyone."
    static let usage = "(--all | --tag T | --alias A | --token HEX | --installation ID | --user-id U) <message> [options]"
    static let discussion = """
    EXAMPLES:
      herald push --api-key $MASTER --tag news --title 头条 --body "Herald works" --badge-increment 1
      herald push --api-key $MASTER --all --content-available --data '{"sync":true}'
      herald push --api-key $MASTER --alias user-42 --alert hi --send-at 2026-12-01T09:00:00Z
      herald push status <push-id> --api-key $MASTER
    """
    static let options = ServerAccess.options + [
        .flag("all", "Every device of the app."),
        .value("tag", "tag", "Devices with this tag (any of the given).", repeatable: true),
        .value("tag-all", "tag", "Devices with all of these tags.", repeatable: true),
        .value("tag-none", "tag", "Devices without these tags.", repeatable: true),
        .value("alias", "alias", "Devices of this alias.", repeatable: true),
        .value("token", "hex", "This device token.", repeatable: true),
        .value("installation", "id", "This installation.", repeatable: true),
        .value("user-id", "id", "Devices of this user.", repeatable: true),
        .value("environment", "env", "Only sandbox or only production devices."),
        .value("alert", "text", "Alert text."), .value("title", "text", "Alert title."), .value("subtitle", "text", "Alert subtitle."),
        .value("body", "text", "Alert body."), .value("sound", "name", "Sound."), .value("category", "id", "Category."),
        .value("thread-id", "id", "Thread id."),
        .value("badge", "n", "Set the badge to n."), .value("badge-increment", "n", "Add n to each device's badge."),
        .value("badge-decrement", "n", "Subtract n from each device's badge."),
        .flag("content-available", "Background update."), .flag("mutable-content", "Service extension may modify."),
        .value("data", "json", "Custom keys (JSON object)."),
        .value("push-type", "type", "apns-push-type (derived when unset)."), .value("priority", "n", "10, 5 or 1 (derived when unset)."),
        .value("ttl", "seconds", "Time to live."), .value("collapse-id", "id", "apns-collapse-id."),
        .value("send-at", "time", "ISO 8601 time to send."), .value("local-time", "HH:MM", "Deliver at this local time in each device's zone."),
        .value("rate-limit", "n", "Devices per second at most."),
        .value("idempotency-key", "key", "Same key within 24 h: the same push, nothing sent twice."),
        .flag("dry-run", "Validate and count the audience; send nothing."),
    ]
    static var subcommands: [Command.Type] { [PushStatusCommand.self, PushCancelCommand.self] }

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        var target: [String: Any] = [:]
        if args.has("all") { target["all"] = true }
        for (flag, key) in [("alias", "aliases"), ("token", "tokens"), ("installation", "installationIds"), ("user-id", "userIds")] where !args.all(flag).isEmpty {
            target[key] = args.all(flag)
        }
        var tags: [String: Any] = [:]
        for (flag, key) in [("tag", "any"), ("tag-all", "all"), ("tag-none", "none")] where !args.all(flag).isEmpty { tags[key] = args.all(flag) }
        if !tags.isEmpty { target["tags"] = tags }
        if let e = args.value("environment") { target["environment"] = e }
        guard !target.isEmpty else { throw UsageError("no target: give --all, --tag, --alias, --token, --installation or --user-id") }

        var content: [String: Any] = [:]
        if args.value("title") != nil || args.value("body") != nil || args.value("subtitle") != nil {
            var alert: [String: Any] = [:]
            for k in ["title", "subtitle", "body"] { if let v = args.value(k) { alert[k] = v } }
            if alert["body"] == nil, let a = args.value("alert") { alert["body"] = a }
            content["alert"] = alert
        } else if let a = args.value("alert") {
            content["alert"] = a
        }
        if let n = try args.int("badge") { content["badge"] = n }
        if let n = try args.int("badge-increment") { content["badge"] = ["increment": n] }
        if let n = try args.int("badge-decrement") { content["badge"] = ["decrement": n] }
        for (flag, key) in [("sound", "sound"), ("category", "category"), ("thread-id", "threadId")] { if let v = args.value(flag) { content[key] = v } }
        if args.has("content-available") { content["contentAvailable"] = true }
        if args.has("mutable-content") { content["mutableContent"] = true }
        if let data = args.value("data") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any] else {
                throw UsageError("--data must be a JSON object")
            }
            content["data"] = object
        }
        var options: [String: Any] = [:]
        if let v = args.value("push-type") { options["pushType"] = v }
        if let v = try args.int("priority") { options["priority"] = v }
        if let v = try args.int("ttl") { options["ttl"] = v }
        if let v = args.value("collapse-id") { options["collapseId"] = v }
        if let v = args.value("send-at") { options["sendAt"] = v }
        if let v = args.value("local-time") { options["localTime"] = v }
        if let v = try args.int("rate-limit") { options["rateLimit"] = v }
        var body: [String: Any] = ["target": target, "content": content]
        if !options.isEmpty { body["options"] = options }
        if let k = args.value("idempotency-key") { body["idempotencyKey"] = k }
        if args.has("dry-run") { body["dryRun"] = true }
        let reply = try await ServerAccess.api(args).call("POST", "/v1/pushes", json: body)
        ServerAccess.output(args, reply) { value in
            if args.has("dry-run") { return "dry run: \(JSONAPIClient.pretty(value))" }
            return "push \(ServerAccess.field(value, "id")) \(ServerAccess.field(value, "status")); follow it with: herald push status \(ServerAccess.field(value, "id"))"
        }
        return 0
    }
}

enum PushStatusCommand: Command {
    static let name = "push status"
    static let abstract = "A push's status and counts (sent, failed by reason, retired, opened)."
    static let usage = "<push-id> [--deliveries]"
    static let options = ServerAccess.options + [.flag("deliveries", "Include per-device outcomes.")]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard let id = args.positionals.first else { throw UsageError("give the push id: herald push status <id>") }
        let reply = try await ServerAccess.api(args).call("GET", "/v1/pushes/\(id)" + (args.has("deliveries") ? "?include=deliveries" : ""))
        ServerAccess.output(args, reply) { value in
            let o = value as? [String: Any]
            let counts = (o?["counts"] as? [String: Any] ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            let failures = (o?["failures"] as? [String: Any] ?? [:]).map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            return "push \(id): \(ServerAccess.field(o, "status"))\n  \(counts)" + (failures.isEmpty ? "" : "\n  failures: \(failures)")
                + (args.has("deliveries") ? "\n" + JSONAPIClient.pretty(o?["deliveries"]) : "")
        }
        return 0
    }
}

enum PushCancelCommand: Command {
    static let name = "push cancel"
    static let abstract = "Cancel a scheduled push, or the undelivered rest of a running one."
    static let usage = "<push-id>"
    static let options = ServerAccess.options

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard let id = args.positionals.first else { throw UsageError("give the push id: herald push cancel <id>") }
        let reply = try await ServerAccess.api(args).call("POST", "/v1/pushes/\(id)/cancel")
        ServerAccess.output(args, reply) { "push \(id): \(ServerAccess.field($0, "status"))" }
        return 0
    }
}
