import Foundation

// MARK: - herald webhooks

enum WebhooksCommand: CommandGroup {
    static let name = "webhooks"
    static let abstract = "Send an app's events (push done, token retired, opened, paused) to your backend (docs/webhooks.md)."
    static var subcommands: [Command.Type] {
        [WebhooksListCommand.self, WebhooksCreateCommand.self, WebhooksUpdateCommand.self, WebhooksDeleteCommand.self,
         WebhooksRotateCommand.self, WebhooksDeliveriesCommand.self, WebhooksRedeliverCommand.self, WebhooksPingCommand.self]
    }

    static let appOption: [Option] = ServerAccess.options + [.value("app", "id", "The app.")]
    static let webhookOptions: [Option] = appOption + [.value("webhook", "id", "The webhook.")]

    static func path(_ args: ParsedArguments, _ rest: String = "") throws -> String {
        "/v1/apps/\(try args.required("app"))/webhooks" + rest
    }

    static func webhookPath(_ args: ParsedArguments, _ rest: String = "") throws -> String {
        try path(args, "/\(try args.required("webhook"))" + rest)
    }

    static func line(_ w: Any?) -> String {
        let events = ((w as? [String: Any])?["events"] as? [String])?.joined(separator: ",") ?? "-"
        let disabled = (w as? [String: Any])?["disabled"] as? [String: Any]
        let state = ServerAccess.field(w, "enabled") == "1" || ServerAccess.field(w, "enabled") == "true" ? "enabled"
            : disabled.map { "DISABLED: \(ServerAccess.field($0, "reason"))" } ?? "off"
        return "\(ServerAccess.field(w, "id"))  \(ServerAccess.field(w, "url"))  [\(events)]  \(state)"
    }

    /// `--events a,b` (repeatable) as a list, nil when not given.
    static func events(_ args: ParsedArguments) -> [String]? {
        let given = args.all("events").flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        return given.isEmpty ? nil : given
    }

    static let eventsHelp = "Event types, comma separated: push.done, push.failed, push.cancelled, installation.retired, notification.opened, app.paused, app.resumed, credential.rejected, delivery.failed (opt-in). Default: all but delivery.failed."
}

enum WebhooksListCommand: Command {
    static let name = "webhooks list"
    static let abstract = "List an app's webhooks."
    static let usage = "--app <id> --api-key <admin or master>"
    static let options = WebhooksCommand.appOption

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let reply = try await ServerAccess.api(args).call("GET", try WebhooksCommand.path(args))
        ServerAccess.output(args, reply) { value in
            let all = (value as? [String: Any])?["webhooks"] as? [Any] ?? []
            return all.isEmpty ? "no webhooks" : all.map(WebhooksCommand.line).joined(separator: "\n")
        }
        return 0
    }
}

enum WebhooksCreateCommand: Command {
    static let name = "webhooks create"
    static let abstract = "Create a webhook; prints its signing secret once."
    static let usage = "--app <id> --url https://... [--events push.done,installation.retired] [--description text] --api-key <admin or master>"
    static let options = WebhooksCommand.appOption + [
        .value("url", "url", "Where events are POSTed: https, or http for localhost."),
        .value("events", "types", WebhooksCommand.eventsHelp, repeatable: true),
        .value("description", "text", "A note for people."),
        .flag("disabled", "Create it disabled (records no events until enabled)."),
    ]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        var body: [String: Any] = ["url": try args.required("url")]
        if let e = WebhooksCommand.events(args) { body["events"] = e }
        if let d = args.value("description") { body["description"] = d }
        if args.has("disabled") { body["enabled"] = false }
        let reply = try await ServerAccess.api(args).call("POST", try WebhooksCommand.path(args), json: body)
        ServerAccess.output(args, reply) { value in
            """
            webhook \(ServerAccess.field(value, "id")) created
              signing secret (shown once; verify Herald-Signature with it): \(ServerAccess.field(value, "secret"))
            """
        }
        return 0
    }
}

enum WebhooksUpdateCommand: Command {
    static let name = "webhooks update"
    static let abstract = "Change a webhook's url, events or description, or enable/disable it (enabling clears a failure run)."
    static let usage = "--app <id> --webhook <id> [--url ...] [--events ...] [--description ...] [--enable | --disable] --api-key <admin or master>"
    static let options = WebhooksCommand.webhookOptions + [
        .value("url", "url", "New URL."), .value("events", "types", WebhooksCommand.eventsHelp, repeatable: true),
        .value("description", "text", "New description."), .flag("enable", "Enable it."), .flag("disable", "Disable it."),
    ]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        var body: [String: Any] = [:]
        if let u = args.value("url") { body["url"] = u }
        if let e = WebhooksCommand.events(args) { body["events"] = e }
        if let d = args.value("description") { body["description"] = d }
        if args.has("enable") && args.has("disable") { throw UsageError("give --enable or --disable, not both") }
        if args.has("enable") { body["enabled"] = true }
        if args.has("disable") { body["enabled"] = false }
        guard !body.isEmpty else { throw UsageError("nothing to change: give --url, --events, --description, --enable or --disable") }
        let reply = try await ServerAccess.api(args).call("PATCH", try WebhooksCommand.webhookPath(args), json: body)
        ServerAccess.output(args, reply) { WebhooksCommand.line($0) }
        return 0
    }
}

enum WebhooksDeleteCommand: Command {
    static let name = "webhooks delete"
    static let abstract = "Delete a webhook with its undelivered events."
    static let usage = "--app <id> --webhook <id> --api-key <admin or master>"
    static let options = WebhooksCommand.webhookOptions

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        try await ServerAccess.api(args).call("DELETE", try WebhooksCommand.webhookPath(args))
        print("deleted")
        return 0
    }
}

enum WebhooksRotateCommand: Command {
    static let name = "webhooks rotate-secret"
    static let abstract = "Issue a new signing secret (printed once); the old one stops signing at once."
    static let usage = "--app <id> --webhook <id> --api-key <admin or master>"
    static let options = WebhooksCommand.webhookOptions

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let reply = try await ServerAccess.api(args).call("POST", try WebhooksCommand.webhookPath(args, "/rotate-secret"))
        ServerAccess.output(args, reply) { "new signing secret (shown once): \(ServerAccess.field($0, "secret"))" }
        return 0
    }
}

enum WebhooksDeliveriesCommand: Command {
    static let name = "webhooks deliveries"
    static let abstract = "Show a webhook's deliveries, newest first: state, attempts, answers and latency."
    static let usage = "--app <id> --webhook <id> [--limit 20] --api-key <admin or master>"
    static let options = WebhooksCommand.webhookOptions + [.value("limit", "n", "How many (1-200, default 20).")]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let limit = try args.int("limit") ?? 20
        let reply = try await ServerAccess.api(args).call("GET", try WebhooksCommand.webhookPath(args, "/deliveries?limit=\(limit)"))
        ServerAccess.output(args, reply) { value in
            let all = (value as? [String: Any])?["deliveries"] as? [[String: Any]] ?? []
            guard !all.isEmpty else { return "no deliveries yet" }
            return all.map { d in
                let attempts = d["attempts"] as? [[String: Any]] ?? []
                let last = attempts.last.map { a in
                    let answer = ServerAccess.field(a, "status") != "-" ? "HTTP \(ServerAccess.field(a, "status"))" : ServerAccess.field(a, "error")
                    return ", last: \(answer) in \(ServerAccess.field(a, "latencyMs")) ms"
                } ?? ""
                return "\(ServerAccess.field(d, "id"))  \(ServerAccess.field(d, "kind"))  \(ServerAccess.field(d, "state"))  \(ServerAccess.field(d, "eventCount")) events, \(attempts.count) attempts\(last)"
            }.joined(separator: "\n")
        }
        return 0
    }
}

enum WebhooksRedeliverCommand: Command {
    static let name = "webhooks redeliver"
    static let abstract = "Send a delivery's events again now (same event ids)."
    static let usage = "--app <id> --webhook <id> --delivery <id> --api-key <admin or master>"
    static let options = WebhooksCommand.webhookOptions + [.value("delivery", "id", "The delivery to send again.")]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let reply = try await ServerAccess.api(args).call("POST", try WebhooksCommand.webhookPath(args, "/deliveries/\(try args.required("delivery"))/redeliver"))
        ServerAccess.output(args, reply) { "queued as delivery \(ServerAccess.field($0, "id")); see herald webhooks deliveries" }
        return 0
    }
}

enum WebhooksPingCommand: Command {
    static let name = "webhooks ping"
    static let abstract = "Send a ping event to the webhook now; its answer shows in the deliveries."
    static let usage = "--app <id> --webhook <id> --api-key <admin or master>"
    static let options = WebhooksCommand.webhookOptions

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let reply = try await ServerAccess.api(args).call("POST", try WebhooksCommand.webhookPath(args, "/ping"))
        ServerAccess.output(args, reply) { "ping queued as delivery \(ServerAccess.field($0, "id")); see herald webhooks deliveries" }
        return 0
    }
}
