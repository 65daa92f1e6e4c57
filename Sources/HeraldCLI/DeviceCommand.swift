import Foundation
import HeraldHTTP

/// `herald device`: a simulated phone in the terminal.
enum DeviceCommand: Command {
    static let name = "device"
    static let abstract = "Be a simulated device: print notifications as they arrive, report opens."
    static let usage = "--bundle-id <id> [--environment sandbox|production] [--device ID] [--open] [--count N]"
    static let discussion = """
    Without --device, a new device is created and the app installed; its token is printed first, ready
    for `herald send --token` or for registering with `herald serve`. While this runs the device is online;
    stop it and the simulator keeps the newest notification per app until it comes back.
    """
    static let options: [Option] = [
        .value("bundle-id", "id", "The app to install (needed without --device)."),
        .value("environment", "env", "sandbox (default) or production."),
        .value("device", "id", "Attach to an existing device instead of creating one."),
        .value("name", "text", "Name for a new device."),
        .flag("open", "Report every notification as opened (what tapping it does)."),
        .value("count", "n", "Exit after this many notifications."),
        .flag("json", "Print each notification as one JSON line."),
        SimCommand.simOption,
    ]
    static var subcommands: [Command.Type] { [DeviceOpenCommand.self] }

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let api = try SimCommand.api(args)
        var deviceID = args.value("device")
        if deviceID == nil || args.value("bundle-id") != nil {
            let (id, token) = try await SimInstallCommand.installApp(api, args)
            deviceID = id
            if args.has("json") {
                print(#"{"event":"installed","deviceId":"\#(id)","token":"\#(token)"}"#)
            } else {
                print("device \(id): \(args.value("bundle-id") ?? "") installed, token \(token)")
            }
            fflush(nil)
        }
        guard let deviceID else { throw UsageError("give --bundle-id to install an app, or --device ID") }
        let limit = try args.int("count")
        let printer = EventPrinter(json: args.has("json"), open: args.has("open"), limit: limit, api: api, deviceID: deviceID)
        let task = Task {
            _ = try await api.client.stream(HTTPRequest(method: "GET", target: "/devices/\(deviceID)/stream"), timeout: .seconds(10)) { bytes in
                printer.feed(bytes)
            }
        }
        printer.onLimit = { task.cancel() }
        let stop = Task { await waitForTermination(); task.cancel() }
        _ = await task.result
        stop.cancel()
        await printer.waitForOpens()
        return 0
    }
}

/// Turns server-sent events into lock-screen entries.
final class EventPrinter: @unchecked Sendable {
    private let json: Bool
    private let open: Bool
    private let limit: Int?
    private let api: JSONAPIClient
    private let deviceID: String
    private let lock = NSLock()
    private var buffer = ""
    private var seen = 0
    private var pendingOpens: [Task<Void, Never>] = []
    var onLimit: (@Sendable () -> Void)?

    init(json: Bool, open: Bool, limit: Int?, api: JSONAPIClient, deviceID: String) {
        self.json = json
        self.open = open
        self.limit = limit
        self.api = api
        self.deviceID = deviceID
    }

    func feed(_ bytes: [UInt8]) {
        lock.lock()
        buffer += String(decoding: bytes, as: UTF8.self)
        var events: [(String, String)] = []
        while let end = buffer.range(of: "\n\n") {
            let block = String(buffer[..<end.lowerBound])
            buffer.removeSubrange(..<end.upperBound)
            var name = "message", data = ""
            for line in block.split(separator: "\n") {
                if line.hasPrefix("event:") { name = line.dropFirst(6).trimmingCharacters(in: .whitespaces) }
                if line.hasPrefix("data:") { data += line.dropFirst(5).trimmingCharacters(in: .whitespaces) }
            }
            events.append((name, data))
        }
        lock.unlock()
        for (name, data) in events { handle(name, data) }
    }

    private func handle(_ name: String, _ data: String) {
        guard name == "notification" else { return }
        let object = (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any] ?? [:]
        if json { print(data) } else { print(Self.lockScreen(object)) }
        fflush(nil)
        if open, let apnsID = object["apnsId"] as? String {
            let api = self.api, device = deviceID
            let t = Task { _ = try? await api.call("POST", "/devices/\(device)/opened", json: ["apnsId": apnsID]) }
            lock.lock(); pendingOpens.append(t); lock.unlock()
        }
        lock.lock()
        seen += 1
        let reached = limit.map { seen >= $0 } ?? false
        lock.unlock()
        if reached { onLimit?() }
    }

    func waitForOpens() async {
        let tasks = lock.withLock { pendingOpens }
        for t in tasks { await t.value }
    }

    static func lockScreen(_ n: [String: Any]) -> String {
        let payload = n["payload"] as? [String: Any] ?? [:]
        let aps = payload["aps"] as? [String: Any] ?? [:]
        var lines = ["┌ \(n["bundleId"] ?? "?")  \(n["deliveredAt"] ?? n["receivedAt"] ?? "")"]
        switch aps["alert"] {
        case let text as String: lines.append("│ \(text)")
        case let alert as [String: Any]:
            let title = [alert["title"], alert["subtitle"]].compactMap { $0 as? String }.joined(separator: " — ")
            if !title.isEmpty { lines.append("│ \(title)") }
            if let body = alert["body"] as? String { lines.append("│ \(body)") }
            if let key = alert["loc-key"] as? String {
                let args = (alert["loc-args"] as? [Any])?.map { "\($0)" }.joined(separator: ", ") ?? ""
                lines.append("│ loc-key \(key)" + (args.isEmpty ? "" : " (\(args))"))
            }
        default:
            if (aps["content-available"] as? Int) == 1 { lines.append("│ (silent background update)") }
        }
        var facts: [String] = []
        if let badge = aps["badge"] { facts.append("badge \(badge)") }
        if let sound = aps["sound"] { facts.append("sound \(sound is String ? sound : "critical")") }
        if let category = aps["category"] { facts.append("category \(category)") }
        if let thread = aps["thread-id"] { facts.append("thread \(thread)") }
        if !facts.isEmpty { lines.append("│ " + facts.joined(separator: " · ")) }
        let custom = payload.filter { $0.key != "aps" }
        if !custom.isEmpty, let data = try? JSONSerialization.data(withJSONObject: custom, options: [.sortedKeys, .withoutEscapingSlashes]) {
            lines.append("│ data \(String(decoding: data, as: UTF8.self))")
        }
        lines.append("└ apns-id \(n["apnsId"] ?? "?")")
        return lines.joined(separator: "\n")
    }
}

enum DeviceOpenCommand: Command {
    static let name = "device open"
    static let abstract = "Report that a notification was opened on a device (open tracking)."
    static let usage = "--device ID --apns-id UUID"
    static let options: [Option] = [.value("device", "id", "The device."), .value("apns-id", "uuid", "The notification."), SimCommand.simOption]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let device = try args.required("device"), apnsID = try args.required("apns-id")
        try await SimCommand.api(args).call("POST", "/devices/\(device)/opened", json: ["apnsId": apnsID])
        print("opened \(apnsID) on \(device)")
        return 0
    }
}
