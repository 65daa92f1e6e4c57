import Foundation
import Testing
@testable import HeraldClient

/// A listener recording what it was told, the way a JPush-wrapper listener (seed 004) would.
final class RecordingListener: PushListener, @unchecked Sendable {
    private let lock = NSLock()
    private var log: [String] = []
    let backgroundResult: BackgroundFetchResult

    init(backgroundResult: BackgroundFetchResult = .noData) {
        self.backgroundResult = backgroundResult
    }

    var events: [String] {
        lock.lock()
        defer { lock.unlock() }
        return log
    }

    private func record(_ event: String) {
        lock.lock()
        log.append(event)
        lock.unlock()
    }

    func pushOpened(_ notification: PushNotification, actionIdentifier: String?, coldLaunch: Bool) async {
        record("opened \(notification.alert?.body ?? "-") action=\(actionIdentifier ?? "default") cold=\(coldLaunch)")
    }

    func pushReceivedInForeground(_ notification: PushNotification) async {
        record("foreground \(notification.alert?.body ?? "-")")
    }

    func pushReceivedInBackground(_ notification: PushNotification) async -> BackgroundFetchResult {
        record("background")
        return backgroundResult
    }
}

/// A listener that only cares about foreground pushes: the other methods keep their defaults.
final class ForegroundOnlyListener: PushListener {
    let seen = LockedValue(0)
    func pushReceivedInForeground(_ notification: PushNotification) async { seen.value += 1 }
}

@Suite struct ListenerTests {
    let push = PushNotification(userInfo: ["aps": ["alert": "hello"], "herald": ["pushId": "p1"]])

    @Test func listenersHearEachAppStateAndAreAddedOnce() async throws {
        let server = try TestHTTPServer(listening: false)
        defer { server.stop() }
        let client = try makeClient(server: server, retry: .never)
        let listener = RecordingListener()
        await client.addListener(listener)
        await client.addListener(listener)
        #expect(await client.listenerCount == 1)

        await client.handleOpened(push, coldLaunch: true)
        await client.handleForeground(push)
        _ = await client.handleBackground(push)

        #expect(listener.events == ["opened hello action=default cold=true", "foreground hello", "background"])
    }

    @Test func aRemovedListenerHearsNothing() async throws {
        let server = try TestHTTPServer(listening: false)
        defer { server.stop() }
        let client = try makeClient(server: server)
        let kept = RecordingListener()
        let removed = RecordingListener()
        await client.addListener(kept)
        await client.addListener(removed)
        await client.removeListener(removed)
        await client.handleForeground(push)
        #expect(kept.events.count == 1)
        #expect(removed.events.isEmpty)
    }

    @Test func listenersAreHeldWeakly() async throws {
        let server = try TestHTTPServer(listening: false)
        defer { server.stop() }
        let client = try makeClient(server: server)
        var listener: RecordingListener? = RecordingListener()
        await client.addListener(listener!)
        #expect(await client.listenerCount == 1)
        listener = nil
        #expect(await client.listenerCount == 0)
    }

    @Test func aTapDeliveredTwiceIsDispatchedOnce() async throws {
        let (server, _) = try makeFakeHerald()
        defer { server.stop() }
        let client = try makeClient(server: server)
        let listener = RecordingListener()
        await client.addListener(listener)
        // iOS hands a launching tap both to launch options and to the notification center delegate.
        await client.handleOpened(push, coldLaunch: true)
        await client.handleOpened(push, actionIdentifier: "VIEW_IDENTIFIER")
        #expect(listener.events == ["opened hello action=default cold=true"])
        // The report runs in the background; asking again waits for it and does not send another.
        #expect(try await client.trackOpen(push) == false)
        #expect(server.requests.filter { $0.path == "/v1/opens" }.count == 1)
        #expect(await client.hasReportedOpen(pushId: "p1"))
    }

    @Test func anActionTapReachesListenersWithItsIdentifier() async throws {
        let server = try TestHTTPServer(listening: false)
        defer { server.stop() }
        let client = try makeClient(server: server, retry: .never)
        let listener = RecordingListener()
        await client.addListener(listener)
        await client.handleOpened(PushNotification(userInfo: ["aps": ["alert": "news"]]), actionIdentifier: "VIEW_IDENTIFIER")
        #expect(listener.events == ["opened news action=VIEW_IDENTIFIER cold=false"])
    }

    @Test(arguments: [
        ([BackgroundFetchResult](), BackgroundFetchResult.noData),
        ([.noData, .noData], .noData),
        ([.noData, .failed], .failed),
        ([.failed, .newData], .newData),
    ])
    func backgroundResultsCombine(results: [BackgroundFetchResult], expected: BackgroundFetchResult) async throws {
        let server = try TestHTTPServer(listening: false)
        defer { server.stop() }
        let client = try makeClient(server: server)
        let listeners = results.map { RecordingListener(backgroundResult: $0) }
        for listener in listeners { await client.addListener(listener) }
        let silent = PushNotification(userInfo: ["aps": ["content-available": 1]])
        #expect(await client.handleBackground(silent) == expected)
        #expect(listeners.allSatisfy { $0.events == ["background"] })
    }

    @Test func unimplementedListenerMethodsDoNothing() async throws {
        let server = try TestHTTPServer(listening: false)
        defer { server.stop() }
        let client = try makeClient(server: server, retry: .never)
        let listener = ForegroundOnlyListener()
        await client.addListener(listener)
        await client.handleOpened(push)
        #expect(await client.handleBackground(push) == .noData)
        await client.handleForeground(push)
        #expect(listener.seen.value == 1)
    }
}
