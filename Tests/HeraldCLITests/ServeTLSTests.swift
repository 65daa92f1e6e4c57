import Foundation
import Testing
import HeraldTestSupport

/// A real `herald serve --tls-cert ... --tls-key ...` process: it answers over https, and SIGHUP makes it
/// take renewed files (file watching is off here, so only the signal can explain the change).
@Suite(.serialized) struct ServeTLSTests {
    /// The script's standard output (its standard error goes to the test's).
    static func sh(_ script: String) async throws -> String {
        let output = try await ChildProcess.run("/bin/sh", ["-c", script], error: .inherit).output
        return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func sighupReloadsTheCertificateWithoutARestart() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: CrashRecoveryTests.binary), "build first: swift build (make test does)")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("herald-serve-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        _ = try await Self.sh("""
        set -e
        cd '\(dir.path)'
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key -out ca.pem -days 2 -subj /CN=ServeTLSCA 2>/dev/null
        printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\\n' > ext.cnf
        for name in first second; do
          openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout $name.key -out $name.csr -subj /CN=$name 2>/dev/null
          openssl x509 -req -in $name.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out $name.pem -days 2 -extfile ext.cnf 2>/dev/null
        done
        cp first.pem cert.pem; cp first.key key.pem
        """)
        let port = FreePort.next()
        let serve = try CrashRecoveryTests.Child(["serve", "--http-port", "\(port)", "--data-dir", dir.appendingPathComponent("data").path,
                                                  "--simulator-enabled", "false", "--log-format", "text",
                                                  "--tls-cert", dir.appendingPathComponent("cert.pem").path,
                                                  "--http-tls-key", dir.appendingPathComponent("key.pem").path,
                                                  "--http-tls-reload-interval", "0"])
        defer { serve.stop() }
        let curl = "curl -s --cacert '\(dir.path)/ca.pem' --resolve localhost:\(port):127.0.0.1 https://localhost:\(port)/healthz -o /dev/null -w '%{http_code}'"
        let subject = "openssl s_client -connect 127.0.0.1:\(port) -servername localhost </dev/null 2>/dev/null | openssl x509 -noout -subject"
        #expect(try await CrashRecoveryTests.waitUntil(seconds: 60) { try await Self.sh(curl) == "200" })
        #expect(try await Self.sh(subject).hasSuffix("CN = first"))

        _ = try await Self.sh("cd '\(dir.path)' && cp second.pem cert.pem.new && mv cert.pem.new cert.pem && cp second.key key.pem.new && mv key.pem.new key.pem")
        // Without a reload interval, nothing changes until the signal.
        try await Task.sleep(for: .milliseconds(500))
        #expect(try await Self.sh(subject).hasSuffix("CN = first"))
        serve.process.signal(SIGHUP)
        #expect(try await CrashRecoveryTests.waitUntil(seconds: 30) { try await Self.sh(subject).hasSuffix("CN = second") })
        #expect(serve.process.isRunning)
        #expect(try await Self.sh(curl) == "200")
    }
}
