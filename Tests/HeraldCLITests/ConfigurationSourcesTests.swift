import Foundation
import Testing
@testable import HeraldCLI

@Suite struct ConfigurationSourcesTests {
    let known = ServeCommand.knownKeys

    func file(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("herald-\(UUID().uuidString).conf").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func flagsBeatEnvironmentWhichBeatsTheFile() throws {
        let path = try file("# comment\nhttp.port = 9000\ndata.dir = /from/file\napi.rateLimit = 5\n")
        let s = try ConfigurationSources(file: path, environment: ["HERALD_HTTP_PORT": "9100", "HERALD_DATA_DIR": "/from/env"],
                                         flags: ["http.port": "9200"], known: known)
        #expect(s.values["http.port"] == "9200")
        #expect(s.values["data.dir"] == "/from/env")
        #expect(s.values["api.rateLimit"] == "5")
        #expect(s.origins["data.dir"] == "environment HERALD_DATA_DIR")
    }

    @Test func namesAreDerivedOneWayFromTheDottedKey() {
        #expect(ConfigurationSources.environmentName("api.maxBodyBytes") == "HERALD_API_MAX_BODY_BYTES")
        #expect(ConfigurationSources.flagName("simulator.inspectionPort") == "simulator-inspection-port")
        #expect(ConfigurationSources.flagName("delivery.defaultTTL") == "delivery-default-ttl", "an acronym is one word")
        #expect(ConfigurationSources.environmentName("delivery.defaultTTL") == "HERALD_DELIVERY_DEFAULT_TTL")
        #expect(ConfigurationSources.flagName("a.fetchURLPath") == "a-fetch-url-path")
    }

    @Test func anEnvironmentVariableUnderItsOldNameIsAnErrorNamingTheNewOne() throws {
        let error = #expect(throws: UsageError.self) {
            try ConfigurationSources(file: nil, environment: ["HERALD_DELIVERY_DEFAULT_T_T_L": "60"], flags: [:], known: ["delivery.defaultTTL"])
        }
        #expect("\(error.map { "\($0)" } ?? "")".contains("HERALD_DELIVERY_DEFAULT_TTL"))
        let s = try ConfigurationSources(file: nil, environment: ["HERALD_DELIVERY_DEFAULT_TTL": "60"], flags: [:], known: ["delivery.defaultTTL"])
        #expect(s.values["delivery.defaultTTL"] == "60")
    }

    @Test func jsonFilesWork() throws {
        let s = try ConfigurationSources(file: try file(#"{"http.port": 8181, "log.format": "json"}"#), environment: [:], flags: [:], known: known)
        #expect(s.values["http.port"] == "8181")
        #expect(s.values["log.format"] == "json")
    }

    @Test func unknownKeysAndBadValuesAreUsageErrorsNamingTheKey() throws {
        #expect(throws: UsageError.self) { try ConfigurationSources(file: try file("htp.port = 1\n"), environment: [:], flags: [:], known: known) }
        do {
            _ = try ServeSettings(["http.port": "eighty"])
            Issue.record("a bad port was accepted")
        } catch let e as UsageError {
            #expect(e.message.contains("http.port"))
        }
        do {
            _ = try ServeSettings(["delivery.maxAttempts": "-1"])
            Issue.record("a bad attempt count was accepted")
        } catch let e as UsageError {
            #expect(e.message.contains("delivery.maxAttempts"))
        }
    }

    /// Unset, the journal commits as often as the store says it can afford (`HeraldStorage.defaultJournalInterval`);
    /// a setting, 0 included (the journal off), wins.
    @Test func theJournalIntervalIsTheStoresUnlessSet() throws {
        #expect(try ServeSettings([:]).service.journalInterval == nil)
        #expect(try ServeSettings(["delivery.journalInterval": "0.01"]).service.journalInterval == 0.01)
        #expect(try ServeSettings(["delivery.journalInterval": "0"]).service.journalInterval == 0)
    }

    @Test func theStoreLivesInTheDataDirectoryUnlessGiven() throws {
        #expect(try ServeSettings(["data.dir": "/srv/herald"]).service.databasePath == "/srv/herald/herald.sqlite")
        #expect(try ServeSettings(["data.dir": "/srv/herald", "store.path": "/db/h.sqlite"]).service.databasePath == "/db/h.sqlite")
    }

    @Test func everyCommandHasHelp() async {
        for command in HeraldCommand.commands {
            #expect(await HeraldCommand.run([command.name, "--help"]) == 0)
            for sub in command.subcommands {
                #expect(await HeraldCommand.run(sub.name.split(separator: " ").map(String.init) + ["--help"]) == 0)
            }
        }
        #expect(await HeraldCommand.run(["--version"]) == 0)
        #expect(await HeraldCommand.run(["nonsense"]) == 64)
    }
}
