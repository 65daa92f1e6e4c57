import Foundation
import Testing
import HeraldHTTP
@testable import HeraldServer

/// API keys that passed are reused for `KeyVerdictCache.window` seconds without a store read: what a
/// caller notices is how soon a revoked key stops working.
@Suite struct KeyVerdictCacheTests {
    @Test func aKeyRevokedOnAnotherNodeIsRefusedOnceTheWindowHasPassed() async throws {
        let a = try await TestService()
        let app = try await a.createApp(withCredentials: false)
        #expect(await a.call("GET", "/v1/apps/\(app.id)", key: app.master).status == 200)
        // A second node on the same store rotates the master key; this node is not told.
        let b = try await TestService(directory: a.directory, clock: a.clock)
        #expect(await b.call("POST", "/v1/apps/\(app.id)/keys/master/rotate", key: app.master).status == 201)
        #expect(await b.call("GET", "/v1/apps/\(app.id)", key: app.master).status == 401)
        a.clock.advance(by: KeyVerdictCache.window)
        let refused = await a.call("GET", "/v1/apps/\(app.id)", key: app.master)
        #expect(refused.status == 401)
        #expect(refused.errorCode == "unauthorized")
    }

    @Test func aRotatedKeyIsRefusedAtOnceOnTheNodeThatRotatedIt() async throws {
        let t = try await TestService()
        let app = try await t.createApp(withCredentials: false)
        #expect(await t.call("POST", "/v1/installations", key: app.client, json: ["installationId": "i1"]).status == 201)
        #expect(await t.call("POST", "/v1/apps/\(app.id)/keys/client/rotate", key: app.master).status == 201)
        // No time passes: the key checked a moment ago is not reused.
        #expect(await t.call("POST", "/v1/installations", key: app.client, json: ["installationId": "i2"]).status == 401)
    }

    @Test func aDeletedAppsKeysAreRefusedAtOnce() async throws {
        let t = try await TestService()
        let app = try await t.createApp(withCredentials: false)
        #expect(await t.call("POST", "/v1/installations", key: app.client, json: ["installationId": "i1"]).status == 201)
        #expect(await t.call("DELETE", "/v1/apps/\(app.id)", key: testAdminKey).status == 204)
        #expect(await t.call("POST", "/v1/installations", key: app.client, json: ["installationId": "i2"]).status == 401)
        #expect(await t.call("GET", "/v1/installations", key: app.master).status == 401)
    }

    @Test func aCheckThatStartedBeforeARevocationIsNotRemembered() {
        let cache = KeyVerdictCache()
        let hash = [UInt8](repeating: 7, count: 32)
        let principal = Principal(keyID: "key_1", role: .client(appID: "app_1"))
        let begun = cache.generation
        cache.forgetAll()   // a rotation committed while the check read the store
        cache.remember(hash: hash, principal, checkedAt: start, generation: begun)
        #expect(cache.principal(hash: hash, now: start) == nil)
        cache.remember(hash: hash, principal, checkedAt: start, generation: cache.generation)
        #expect(cache.principal(hash: hash, now: start) == principal)
        #expect(cache.principal(hash: hash, now: start.addingTimeInterval(KeyVerdictCache.window)) == nil)
        #expect(cache.principal(hash: hash, now: start.addingTimeInterval(-1)) == nil)
    }

    @Test func theCacheStaysWithinItsCapacity() {
        let cache = KeyVerdictCache()
        let principal = Principal(keyID: "key_1", role: .admin)
        for i in 0..<(KeyVerdictCache.capacity + 10) {
            let hash = withUnsafeBytes(of: UInt64(i)) { Array($0) }
            cache.remember(hash: hash, principal, checkedAt: start, generation: cache.generation)
        }
        #expect(cache.count <= KeyVerdictCache.capacity)
        #expect(cache.principal(hash: withUnsafeBytes(of: UInt64(KeyVerdictCache.capacity + 9)) { Array($0) }, now: start) == principal)
    }

    @Test func theBearerSchemeIsReadInAnyCaseAndTheKeyTrimmed() {
        #expect(KeyAuthenticator.bearerSecret("Bearer abc") == Array("abc".utf8))
        #expect(KeyAuthenticator.bearerSecret("bEaReR \t abc \t") == Array("abc".utf8))
        #expect(KeyAuthenticator.bearerSecret("Bearer \u{00A0}abc\u{3000}") == Array("abc".utf8))
        #expect(KeyAuthenticator.bearerSecret("Basic abc") == nil)
        #expect(KeyAuthenticator.bearerSecret("Bearer") == nil)
        #expect(KeyAuthenticator.bearerSecret("Bearer\0abc") == nil)
        #expect(KeyAuthenticator.bearerSecret("Bearer    ") == [])
    }
}
