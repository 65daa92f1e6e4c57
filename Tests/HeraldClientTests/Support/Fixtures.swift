import Foundation
@testable import HeraldClient

/// Records the delays the client asked to sleep, without sleeping, and can run a hook on each.
final class SleepRecorder: @unchecked Sendable {
    // @unchecked: `delays` is guarded by `lock`.
    private let lock = NSLock()
    private var recorded: [TimeInterval] = []
    private let hook: @Sendable (Int) -> Void

    init(hook: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.hook = hook
    }

    var delays: [TimeInterval] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }

    var sleep: @Sendable (TimeInterval) async throws -> Void {
        { [self] seconds in hook(record(seconds)) }
    }

    private func record(_ seconds: TimeInterval) -> Int {
        lock.lock()
        defer { lock.unlock() }
        recorded.append(seconds)
        return recorded.count
    }
}

/// A clock tests move by hand.
final class TestClock: @unchecked Sendable {
    // @unchecked: `current` is guarded by `lock`.
    private let lock = NSLock()
    private var current = Date(timeIntervalSince1970: 1_800_000_000)

    var now: Date {
        lock.lock()
        defer { lock.unlock() }
        return current
    }

    func advance(by seconds: TimeInterval) {
        lock.lock()
        current += seconds
        lock.unlock()
    }
}

/// Collects badge values set locally.
final class BadgeRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [Int] = []

    var values: [Int] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }

    func set(_ value: Int) {
        lock.lock()
        recorded.append(value)
        lock.unlock()
    }
}

/// A temporary directory of its own for one test; `defer { directory.remove() }` right after creating it.
struct TemporaryDirectory: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("herald-client-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

let fixedDevice = DeviceInfo(locale: "zh-Hans_CN", timeZone: "Asia/Shanghai", appVersion: "2.1.0",
                             osVersion: "17.2.1", deviceModel: "iPhone15,2")

/// A 32-byte token with recognisable bytes.
let tokenData = Data((0..<32).map { UInt8($0 * 7 & 0xff) })

func makeClient(
    server: TestHTTPServer,
    storage: any KeyValueStorage = InMemoryStorage(),
    clientKey: String = "ck_test",
    sleeper: SleepRecorder = SleepRecorder(),
    clock: TestClock = TestClock(),
    device: @escaping @Sendable () -> DeviceInfo = { fixedDevice },
    badges: BadgeRecorder = BadgeRecorder(),
    retry: RetryPolicy = RetryPolicy(maxAttempts: 4, initialDelay: 1, maxDelay: 8)
) throws -> HeraldClient {
    try HeraldClient(configuration: .init(
        serverURL: server.baseURL, clientKey: clientKey, environment: .sandbox, topic: "com.example.news",
        storage: storage, deviceInfo: device, retryPolicy: retry, requestTimeout: 5,
        badgeSetter: { badges.set($0) }, now: { clock.now }, sleep: sleeper.sleep))
}

/// A server backed by ``FakeHeraldAPI``.
func makeFakeHerald() throws -> (TestHTTPServer, FakeHeraldAPI) {
    let api = FakeHeraldAPI()
    let server = try TestHTTPServer(fallback: { api.handle($0) })
    return (server, api)
}
