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

    Lines of --tokens-file that are not device tokens are reported (line number and why) and skipped; the
    other tokens are sent.

    Exit status: 0 when every notification was accepted, 1 when any failed or a line of the tokens file
    was skipped, 64 for a usage error.
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
        let (tokens, badLines) = try TokenInput.read(args)
        let json = args.has("json")
        report(badLines, json: json)
        guard !tokens.isEmpty else {
            Console.error("no valid device token to send to")
            return 1
        }
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
            return badLines.isEmpty ? 0 : 1
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
        let progress = !json && !args.has("quiet") && Console.stderrIsTerminal && notifications.count > 1
            ? ProgressBar(total: notifications.count, tally: tally) : nil
        progress?.start()
        // With one loop, the task that builds the requests runs on it too: on two cores a third busy thread
        // (Swift's pool, woken for every chunk) took CPU from the loop and from the peer. Against nghttpd, 1x100
        // went from 0.91 of h2load's rate to 1.03 and 4x100 from 0.85 to 0.94 (docs/performance.md, round 22).
        // With several loops, one of them would do every connection's share of that work: the pool keeps it.
        // After the scope the task is back on Swift's pool, so the deferred `loops.shutdown()` waits for the
        // loop's thread (called on its own loop, it could not; EventLoopTests checks where the task ends up).
        let feeder: (any TaskExecutor)? = loops.loops.count == 1 ? loops.loops[0] : nil
        await withTaskExecutorPreference(feeder) {
            await client.send(prepared: prepared) { result in
                tally.record(result)
                if json { print(ResultJSON.line(result)) }
            }
        }
        progress?.stop()
        if !json && !args.has("quiet") {
            Console.error(tally.summary() + (badLines.isEmpty ? "" : "\n  skipped \(badLines.count) line\(badLines.count == 1 ? "" : "s") of the tokens file (above)"))
        }
        return tally.failed == 0 && badLines.isEmpty ? 0 : 1
    }

    /// Says which lines of the tokens file were skipped and why (on standard error, and as JSON lines with
    /// --json), the first 20 in full: a wrong file would otherwise print a line per token.
    static func report(_ badLines: [TokenInput.BadLine], json: Bool) {
        for bad in badLines {
            if json { print(ResultJSON.line(bad)) }
        }
        for bad in badLines.prefix(20) { Console.error("skipped \(bad.description)") }
        if badLines.count > 20 { Console.error("skipped \(badLines.count - 20) more lines that are not device tokens") }
    }
}

/// Counts outcomes as results arrive from I/O threads.
final class SendTally: Sendable {
    let total: Int
    // Acceptances are the hot path (one per notification): an atomic, not the lock.
    private let acceptedCount = Atomic<Int>(0)
    /// Failures by kind, with the first error of each kind in full: it carries the hint (`--ca`, ...).
    private let state = Mutex<(failures: [String: (count: Int, first: String)], started: Date)>(([:], Date()))

    init(total: Int) { self.total = total }

    func record(_ result: APNSDeliveryResult) {
        switch result.result {
        case .success: acceptedCount.wrappingAdd(1, ordering: .relaxed)
        case let .failure(e): state.withLock { $0.failures[Self.label(e), default: (0, e.description)].count += 1 }
        }
    }

    var accepted: Int { acceptedCount.load(ordering: .relaxed) }
    var failed: Int { state.withLock { $0.failures.values.reduce(0) { $0 + $1.count } } }
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
            let failedNow = s.failures.values.reduce(0) { $0 + $1.count }
            var lines = ["\(total) notification\(total == 1 ? "" : "s") in \(String(format: "%.2f", seconds)) s (\(Int(Double(total) / seconds))/s): "
                         + "\(acceptedNow) accepted, \(failedNow) failed"]
            for (label, f) in s.failures.sorted(by: { $0.value.count > $1.value.count }) {
                lines.append("  \(label): \(f.count)" + (f.count == 1 ? " (\(f.first))" : ", the first: \(f.first)"))
            }
            return lines.joined(separator: "\n")
        }
    }
}

enum ResultJSON {
    static func line(_ bad: TokenInput.BadLine) -> String {
        var object = JSONObject()
        object["status"] = .string("skipped")
        object["source"] = .string(bad.origin)
        object["line"] = .int(bad.line)
        object["error"] = .string(bad.message)
        return String(decoding: JSONValue.object(object).jsonBytes(), as: UTF8.self)
    }

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
