import Foundation
import HeraldHTTP
import Testing
@testable import HeraldSimulator

@Suite("Fault injection")
struct FaultTests {
    func run(_ f: Fixture, _ count: Int, on connection: ConnectionAuthState? = nil) -> [String] {
        let connection = connection ?? f.certificateConnection()
        return (0..<count).map { _ in
            switch f.simulator.provider.handle(request: push(to: f.token), connection: connection, now: f.clock.now) {
            case let .respond(r): r.reason ?? String(r.status)
            case let .respondAfter(ms, r): "delay\(ms):\(r.status)"
            case .neverAnswer: "never"
            case .resetConnection: "reset"
            }
        }
    }

    @Test func sameSeedGivesTheSameFaultsAndRatesAreRoughlyHonoured() throws {
        var faults = FaultConfiguration()
        faults.seed = 42
        faults.internalServerErrorRate = 0.2
        faults.serviceUnavailableRate = 0.1
        faults.tooManyRequestsRate = 0.1
        let a = try Fixture { $0.faults = faults }
        let b = try Fixture { $0.faults = faults }
        let first = run(a, 500)
        #expect(first == run(b, 500))
        let errors = first.filter { $0 == "InternalServerError" }.count
        #expect((70...130).contains(errors))
        #expect(first.contains("ServiceUnavailable") && first.contains("TooManyRequests") && first.contains("200"))
        #expect(a.simulator.statistics.faults["InternalServerError"] == errors)
        faults.seed = 43
        let c = try Fixture { $0.faults = faults }
        #expect(run(c, 500) != first)
    }

    @Test func eachInjectedFaultIsCountedOnce() throws {
        var faults = FaultConfiguration()
        faults.seed = 42
        faults.internalServerErrorRate = 0.3
        faults.tooManyRequestsRate = 0.2
        faults.connectionResetRate = 0.1
        let f = try Fixture { $0.faults = faults }
        let outcomes = run(f, 200)
        let count = { (name: String) in outcomes.filter { $0 == name }.count }
        let stats = f.simulator.statistics
        #expect(stats.faults == ["InternalServerError": count("InternalServerError"), "TooManyRequests": count("TooManyRequests"),
                                 "reset": count("reset")])
        #expect(stats.rejected == ["InternalServerError": count("InternalServerError"), "TooManyRequests": count("TooManyRequests")])
        #expect(stats.rejectedTotal == count("InternalServerError") + count("TooManyRequests"))
        #expect(stats.accepted == count("200"))
    }

    @Test func faultsCanBeChangedAtRunTime() throws {
        let f = try Fixture()
        #expect(run(f, 3) == ["200", "200", "200"])
        var faults = FaultConfiguration()
        faults.serviceUnavailableRate = 1
        try f.simulator.setFaults(faults)
        #expect(run(f, 2) == ["ServiceUnavailable", "ServiceUnavailable"])
        try f.simulator.setFaults(FaultConfiguration())
        #expect(run(f, 1) == ["200"])
        faults.delayRate = 1.5
        #expect(throws: SimulatorError.self) { try f.simulator.setFaults(faults) }
    }

    @Test func resetsNeverAnsweredAndDelayedResponses() throws {
        var faults = FaultConfiguration()
        faults.connectionResetRate = 1
        #expect(run(try Fixture { $0.faults = faults }, 1) == ["reset"])
        faults = FaultConfiguration()
        faults.neverAnswerRate = 1
        #expect(run(try Fixture { $0.faults = faults }, 1) == ["never"])
        faults = FaultConfiguration()
        faults.delayRate = 1
        faults.delayMilliseconds = 250
        let f = try Fixture { $0.faults = faults }
        #expect(run(f, 1) == ["delay250:200"])
        #expect(f.inbox.count == 1)
    }

    @Test func goAwayAfterNStreamsCarriesTheReason() throws {
        var faults = FaultConfiguration()
        faults.goAwayAfterStreams = 3
        faults.goAwayReason = "Shutdown"
        let f = try Fixture { $0.faults = faults }
        let connection = f.certificateConnection()
        _ = run(f, 2, on: connection)
        #expect(connection.pendingGoAwayReason == nil)
        _ = run(f, 1, on: connection)
        #expect(connection.pendingGoAwayReason == "Shutdown")
        _ = run(f, 2, on: connection)
        #expect(f.simulator.statistics.faults["goAway"] == 1)
    }

    @Test func streamLimitOverrideReachesLiveConnections() throws {
        let f = try Fixture()
        let connection = f.certificateConnection()
        _ = run(f, 1, on: connection)
        #expect(connection.pendingMaxConcurrentStreams == nil)
        var faults = FaultConfiguration()
        faults.maxConcurrentStreamsOverride = 1
        try f.simulator.setFaults(faults)
        _ = run(f, 1, on: connection)
        #expect(connection.pendingMaxConcurrentStreams.map(f.simulator.provider.resolvedStreamLimit) == 1)
        faults.maxConcurrentStreamsOverride = 0
        #expect(throws: SimulatorError.self) { try f.simulator.setFaults(faults) }
    }

    @Test func partialJSONKeepsDefaults() throws {
        let faults = try JSONDecoder().decode(FaultConfiguration.self, from: Data(#"{"tooManyRequestsRate":0.5,"tlsHandshakeDelayMilliseconds":300}"#.utf8))
        #expect(faults.tooManyRequestsRate == 0.5)
        #expect(faults.tlsHandshakeDelayMilliseconds == 300)
        #expect(faults.seed == FaultConfiguration().seed)
        #expect(faults.goAwayReason == "Shutdown")
    }
}
