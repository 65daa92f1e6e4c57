import Foundation
import Synchronization
import APNSCore
import APNSClient
import HeraldIO

/// `herald send`: push straight to APNs (or the simulator) from the command line.
enum SendCommand: Command {
    static let name = "send"
    static let abstract = "Send a notification to one or many device tokens through APNs."
    static let usage = "--token <hex> [--token ...] | --tokens-file <file|->  <credentials> --topic <bundle-id> <message> [options]"
    static let discussion = """
    EXAMPLES:
      herald send --key AuthKey_ABC123DEFG.p8 --key-id ABC123DEFG --team-id DEF123GHIJ \\
                  --topic com.example.app --sandbox --token 740f4707... --title Hello --body World
      herald send --cert ck.pem --passphrase pushchat --sandbox --token 740f... --alert "新闻来了" --badge 1
      herald send --host 127.0.0.1:2197 --ca sim-ca.pem --key sim.p8 --key-id K --team-id T \\
                  --topic com.example.app --tokens-file tokens.txt --payload payload.json --connections 4

    Exit status: 0 when every notification was accepted, 1 when any failed, 64 for a usage error.
    """
    static let options: [Option] = [
        .value("token", "hex", "A device token (hex, any even length).", repeatable: true),
        .value("tokens-file", "file|-", "Device tokens, one per line (- reads standard input)."),
        .value("topic", "bundle-id", "apns-topic: the app's bundle id (default: the certificate's UID)."),
    ] + EndpointOptions.options + MessageOptions.options + [
        .flag("dry-run", "Validate and print the exact requests without connecting."),
        .flag("json", "Print one JSON result per token on standard output."),
        .flag("quiet", "No progress bar or summary."),
    ]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let tokens = try TokenInput.read(args)
        let credentials = try EndpointOptions.credentials(args)
        let topic = try EndpointOptions.topic(args, credentials: credentials)
        let payload = try MessageOptions.payload(args)
        let options = try MessageOptions.requestOptions(args)
        let notifications = tokens.map { options.notification(token: $0, topic: topic, payload: payload) }
        // Validate everything up front: a usage mistake should not send half the list.
        let prepared: [APNSPreparedRequest]
        do { prepared = try notifications.map { try $0.prepare() } } catch { throw UsageError("\(error)") }
        let config = try EndpointOptions.configuration(args, credentials: credentials)
        if args.has("dry-run") {
            try DryRun.print(notifications, configuration: config)
            return 0
        }
        // One event loop per two cores: the loop runs nghttp2 and TLS for every connection, the task that
        // feeds it runs beside it, and on a small machine a second loop only competes with both (4
        // connections on 2 cores: 0.77 of h2load's rate with one loop, 0.67 with two; docs/performance.md).
        let loops = EventLoopGroup(loopCount: max(1, ProcessInfo.processInfo.activeProcessorCount / 2), name: "herald-send")
        let client = try APNSClient(configuration: config, group: loops)
        defer {
            client.shutdown()
            loops.shutdown()
        }
        let tally = SendTally(total: notifications.count)
        let json = args.has("json")
        let progress = !json && !args.has("quiet") && Console.stderrIsTerminal && notifications.count > 1
            ? ProgressBar(total: notifications.count, tally: tally) : nil
        progress?.start()
        await client.send(prepared: prepared) { result in
            tally.record(result)
            if json { print(ResultJSON.line(result)) }
        }
        progress?.stop()
        if !json && !args.has("quiet") { Console.error(tally.summary()) }
        return tally.failed == 0 ? 0 : 1
    }
}

/// Counts outcomes as results arrive from I/O threads.
final class SendTally: Sendable {
    let total: Int
    // Acceptances are the hot path (one per notification): an atomic, not the lock.
    private let acceptedCount = Atomic<Int>(0)
    private let state = Mutex<(failures: [String: Int], started: Date)>(([:], Date()))

    init(total: Int) { self.total = total }

    func record(_ result: APNSDeliveryResult) {
        switch result.result {
        case .success: acceptedCount.wrappingAdd(1, ordering: .relaxed)
        case let .failure(e): state.withLock { $0.failures[Self.label(e), default: 0] += 1 }
        }
    }

    var accepted: Int { acceptedCount.load(ordering: .relaxed) }
    var failed: Int { state.withLock { $0.failures.values.reduce(0, +) } }
    var done: Int { accepted + failed }

    static func label(_ e: APNSClientError) -> String {
        switch e {
        case let .rejected(r): "\(r.status) \(r.reason?.rawValue ?? "(no reason)")"
        case .transport: "transport error"
        case .invalid: "invalid"
        case .credentials: "credentials"
        case .shutdown: "shutdown"
        }
    }

    func summary() -> String {
        let acceptedNow = accepted
        return state.withLock { s in
            let seconds = max(0.001, Date().timeIntervalSince(s.started))
            var lines = ["sent \(total) notification\(total == 1 ? "" : "s") in \(String(format: "%.2f", seconds)) s (\(Int(Double(total) / seconds))/s)",
                         "  accepted: \(acceptedNow)"]
            for (label, n) in s.failures.sorted(by: { $0.value > $1.value }) { lines.append("  \(label): \(n)") }
            return lines.joined(separator: "\n")
        }
    }
}

enum ResultJSON {
    static func line(_ r: APNSDeliveryResult) -> String {
        var fields: [(String, JSONValue)] = [("index", .int(r.index)), ("token", .string(r.deviceToken.hex))]
        switch r.result {
        case let .success(ok):
            fields += [("status", .string("accepted")), ("apnsId", .string(ok.apnsID.uuidString.lowercased()))]
            if let u = ok.apnsUniqueID { fields.append(("apnsUniqueId", .string(u.uuidString.lowercased()))) }
        case let .failure(.rejected(e)):
            fields += [("status", .string("rejected")), ("httpStatus", .int(e.status)), ("reason", e.reason.map { .string($0.rawValue) } ?? .null)]
            if let ts = e.timestampMilliseconds { fields.append(("timestamp", .int(Int(ts)))) }
        case let .failure(e):
            fields += [("status", .string("failed")), ("error", .string(e.description))]
        }
        fields.append(("attempts", .int(r.attempts)))
        var object = JSONObject()
        for (k, v) in fields { object[k] = v }
        return String(decoding: JSONValue.object(object).jsonBytes(), as: UTF8.self)
    }
}
