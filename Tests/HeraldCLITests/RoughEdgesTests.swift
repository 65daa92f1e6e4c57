import Foundation
import Testing
import APNSCore
import HeraldHTTP
@testable import APNSClient
@testable import HeraldCLI

/// `herald send` and `herald serve --print-config` say what happened, truthfully and completely.
@Suite struct SendReportingTests {
    @Test func badLinesOfATokensFileAreReportedAndTheRestKept() throws {
        let good = String(repeating: "ab", count: 32)
        let text = "# tokens\n\(good)\nnot-a-token\n\n\(good.uppercased())\nabc\n"
        let args = try ParsedArguments(["--tokens-file", "-"], options: SendCommand.options)
        let (tokens, bad) = try TokenInput.read(args, stdin: { text })
        #expect(tokens.count == 2)
        #expect(bad.map(\.line) == [3, 6])
        #expect(bad.allSatisfy { $0.origin == "standard input" && !$0.message.isEmpty })
        #expect(bad[0].description.hasPrefix("standard input line 3: "))
        // A bad --token is still a mistake on the command line.
        let flag = try ParsedArguments(["--token", "xyz"], options: SendCommand.options)
        #expect(throws: UsageError.self) { try TokenInput.read(flag) }
    }

    @Test func theSummaryCountsTruthfullyAndShowsTheFirstErrorOfEachKind() {
        let tally = SendTally(total: 3)
        let token = try! DeviceToken(hex: String(repeating: "ab", count: 32))
        let hint = "TLS handshake failed: certificate verify failed: self-signed certificate; pass the server's CA with --ca"
        tally.record(APNSDeliveryResult(index: 0, deviceToken: token, result: .failure(.transport(.connectFailed(hint))), attempts: 1))
        tally.record(APNSDeliveryResult(index: 1, deviceToken: token, result: .failure(.transport(.connectFailed("refused"))), attempts: 1))
        tally.record(APNSDeliveryResult(index: 2, deviceToken: token, result: .failure(.rejected(APNSError(status: 400, reason: .badDeviceToken))), attempts: 1))
        let summary = tally.summary()
        #expect(summary.hasPrefix("3 notifications in "))
        #expect(summary.contains("0 accepted, 3 failed"))
        #expect(!summary.contains("sent 3"))
        #expect(summary.contains("transport error: 2, the first: cannot connect: \(hint)"))
        #expect(summary.contains("400 BadDeviceToken: 1 (APNs refused the notification: HTTP 400 BadDeviceToken)"))
    }

    @Test func printConfigShowsTheStoreURLWithoutItsPassword() throws {
        let sources = try ConfigurationSources(file: nil, environment: ["HERALD_STORE_URL": "postgres://herald:s3cret@db.internal:5432/herald"],
                                               flags: [:], known: ServeCommand.knownKeys)
        let lines = ServeCommand.printedConfiguration(try ServeSettings(sources.values), sources: sources)
        #expect(lines.contains("store.url = postgres://herald:***@db.internal:5432/herald   # environment HERALD_STORE_URL"))
        #expect(!lines.contains { $0.contains("s3cret") })
    }

    @Test func printConfigShowsEveryEffectiveValueAndNoSecret() throws {
        let adminKey = "operator-admin-key-0123456789"
        let secret = Data(repeating: 7, count: 32).base64EncodedString()
        let sources = try ConfigurationSources(file: nil, environment: ["HERALD_ADMIN_KEY": adminKey],
                                               flags: ["http.port": "9090", "secrets.key": secret], known: ServeCommand.knownKeys)
        let lines = ServeCommand.printedConfiguration(try ServeSettings(sources.values), sources: sources)
        #expect(lines.count == ServeCommand.knownKeys.count)
        #expect(!lines.contains { $0.contains("(default)") })
        #expect(lines.contains("http.port = 9090   # --http-port"))
        #expect(lines.contains("http.host = 127.0.0.1   # default"))
        #expect(lines.contains("delivery.batchSize = 500   # default"))
        #expect(lines.contains("delivery.pollInterval = 0.25   # default"))
        #expect(lines.contains("store.path = \(URL(fileURLWithPath: "herald-data").appendingPathComponent("herald.sqlite").path)   # default"))
        #expect(lines.contains("admin.key = (set, hidden)   # environment HERALD_ADMIN_KEY"))
        #expect(lines.contains("secrets.key = (set, hidden)   # --secrets-key"))
        #expect(!lines.contains { $0.contains(adminKey) || $0.contains(secret) })
    }
}
