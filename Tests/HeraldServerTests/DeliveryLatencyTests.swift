import Foundation
import Synchronization
import Testing
@testable import HeraldServer

/// The path of a small push from the API to APNs: no poll interval and no round of other pushes on it
/// (issue #19). The clock is frozen and the loop polls once an hour, so only the mechanism can deliver in
/// time; the waits below are fallbacks that turn a regression into a failed expectation instead of a hang.
@Suite struct DeliveryLatencyTests {
    @Test func aOneDevicePushGoesOutAtOnceEvenWhileAnotherPushsBatchHangs() async throws {
        let t = try await TestService { $0.runWorkers = true; $0.pollInterval = 3600 }
        let app = try await t.createApp()
        try await t.register(app, "slow", token: token(1), tags: ["slow"])
        try await t.register(app, "fast", token: token(2))
        let slowAPNs = Latch()
        let events = Mutex<[String]>([])
        t.transport.onArrival { batch in
            let tokens = batch.notifications.map(\.deviceToken).joined()
            events.withLock { $0.append("sent \(tokens)") }
            if tokens == token(1) { await slowAPNs.wait() }
        }
        func sent(_ token: String) async throws -> Bool {
            try await eventually { events.withLock { $0.contains("sent \(token)") } }
        }

        let slow = try await t.push(app, ["target": ["tags": ["slow"]], "content": ["alert": "slow"]])
        #expect(try await sent(token(1)), "sent although the loop sleeps for an hour")
        let fast = try await t.push(app, ["target": ["tokens": [.string(token(2))]], "content": ["alert": "fast"]])
        _ = try await sent(token(2))
        events.withLock { $0.append("slow answered") }
        slowAPNs.open()
        _ = try await sent(token(2))

        #expect(events.withLock { $0 } == ["sent \(token(1))", "sent \(token(2))", "slow answered"],
                "the one-device push did not wait for the batch of the push before it")
        await t.service.shutdown()   // waits for the batches in flight
        for id in [slow, fast] {
            let status = await t.status(app, id)
            #expect(status["status"] == "done" && status["counts"]?["sent"] == 1, "\(status)")
        }
        #expect(t.transport.notifications.map(\.deviceToken).sorted() == [token(1), token(2)], "each device once")
    }

    /// The express lane sends one batch; the rounds take the rest of the push from the cursor it wrote.
    @Test func aPushLargerThanOneBatchIsFinishedByTheRoundsEachDeviceOnce() async throws {
        let t = try await TestService { $0.runWorkers = true; $0.pollInterval = 0.05; $0.dispatchBatchSize = 2 }
        let app = try await t.createApp()
        for i in 1...7 { try await t.register(app, "i\(i)", token: token(i), tags: ["all"]) }
        let id = try await t.push(app, ["target": ["tags": ["all"]], "content": ["alert": "hi"]])
        var status = JSON.null
        for _ in 0..<600 {
            status = await t.status(app, id)
            if status["status"] == "done" { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        await t.service.shutdown()
        #expect(status["status"] == "done" && status["counts"]?["sent"] == 7, "\(status)")
        #expect(t.transport.notifications.map(\.deviceToken).sorted() == (1...7).map(token).sorted())
    }

    /// The express lane reads a push's audience while the push is being stored (and sends once it is): a
    /// replay of the same idempotency key is stored once and sent once, its early reads dropped; a push to
    /// a token nobody has goes out to nobody.
    @Test func readsAheadSendOnlyWhatWasStoredEachDeviceOnce() async throws {
        let t = try await TestService { $0.runWorkers = true; $0.pollInterval = 3600 }
        let app = try await t.createApp()
        try await t.register(app, "one", token: token(1))
        let body: JSON = ["target": ["tokens": [.string(token(1))]], "content": ["alert": "once"], "idempotencyKey": "k1"]
        let first = try await t.push(app, body)
        let replay = try await t.push(app, body)
        let nobody = try await t.push(app, ["target": ["tokens": [.string(token(9))]], "content": ["alert": "none"]])
        var status = JSON.null
        for _ in 0..<600 {
            status = await t.status(app, first)
            if status["status"] == "done" { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        await t.service.shutdown()
        #expect(replay == first)
        #expect(status["status"] == "done" && status["counts"]?["sent"] == 1, "\(status)")
        #expect(await t.status(app, nobody)["counts"]?["sent"] == 0)
        #expect(t.transport.notifications.map(\.deviceToken) == [token(1)], "sent once, to the one device")
    }

    /// Whether `condition` holds within a minute (checked every 10 ms). Only a fallback: the assertions are
    /// about order and counts, never about how long something took.
    private func eventually(_ condition: () -> Bool) async throws -> Bool {
        for _ in 0..<6000 {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }
}

/// Holds callers until opened.
private final class Latch: Sendable {
    private let state = Mutex<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.open { return true }
                s.waiting.append(c)
                return false
            }
            if now { c.resume() }
        }
    }

    func open() {
        let waiting = state.withLock { s in
            s.open = true
            defer { s.waiting = [] }
            return s.waiting
        }
        waiting.forEach { $0.resume() }
    }
}
