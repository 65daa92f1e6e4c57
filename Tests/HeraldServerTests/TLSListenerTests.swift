import Foundation
import Testing
import HeraldCrypto
import HeraldHTTP
import HeraldIO
@testable import HeraldServer
import HeraldProvider
import HeraldTestSupport

/// A test CA and server certificates made with the openssl command line (not with the code under test),
/// in a directory of their own; `install` copies one pair to the files the server is configured with, as
/// a renewal would (a rename over each file).
struct TLSTestFiles {
    let directory: URL
    var caFile: String { path("ca.pem") }
    var certificate: String { path("live-cert.pem") }
    var key: String { path("live-key.pem") }
    var files: TLSCertificateReloader.Files { .init(certificate: certificate, key: key) }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Certificates `names` (CN = name, for localhost and 127.0.0.1) signed by one CA; the first one installed.
    init(_ names: [String], rsa: Set<String> = []) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var script = """
        set -e
        cd '\(directory.path)'
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key -out ca.pem -days 2 -subj /CN=HeraldTLSTestCA 2>/dev/null
        printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\\n' > ext.cnf
        """
        for name in names {
            let key = rsa.contains(name) ? "-newkey rsa:2048" : "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1"
            script += """

            openssl req \(key) -nodes -keyout \(name).key -out \(name).csr -subj /CN=\(name) 2>/dev/null
            openssl x509 -req -in \(name).csr -CA ca.pem -CAkey ca.key -CAcreateserial -out \(name).pem -days 2 -extfile ext.cnf 2>/dev/null
            """
        }
        try Self.shell(script)
        try install(names[0])
    }

    /// Puts certificate `name` and key `keyName` (default: its own) in place, each by a rename.
    func install(_ name: String, key keyName: String? = nil) throws {
        try replace(certificate, with: try Data(contentsOf: URL(fileURLWithPath: path("\(name).pem"))))
        try replace(key, with: try Data(contentsOf: URL(fileURLWithPath: path("\(keyName ?? name).key"))))
    }

    func replace(_ target: String, with data: Data) throws {
        let temporary = target + ".new"
        try data.write(to: URL(fileURLWithPath: temporary))
        guard rename(temporary, target) == 0 else { throw IOError.tls("rename failed") }
    }

    static func shell(_ script: String) throws {
        let child = try ChildProcess("/bin/sh", ["-c", script], output: .inherit, error: .inherit)
        guard child.waitForExit() == 0 else { throw IOError.tls("openssl failed to make test certificates") }
    }

    /// What Python's `ssl` sees on a new connection to `port`: the peer's CN and the ALPN protocol chosen,
    /// after verifying the chain against the test CA; plus the status of `GET /healthz` over it.
    func probe(port: Int) async throws -> (commonName: String, alpn: String?, status: Int) {
        let script = """
        import json, socket, ssl, sys
        ctx = ssl.create_default_context(cafile=sys.argv[1])
        ctx.set_alpn_protocols(["h2", "http/1.1"])
        with socket.create_connection(("127.0.0.1", int(sys.argv[2])), timeout=20) as raw:
            with ctx.wrap_socket(raw, server_hostname="localhost") as s:
                cert = s.getpeercert()
                cn = [v for rdn in cert["subject"] for (k, v) in rdn if k == "commonName"][0]
                s.sendall(b"GET /healthz HTTP/1.1\\r\\nHost: localhost\\r\\n\\r\\n")
                # The head is enough (and reading to the end could wait on a copy of the server's socket
                # that a process another test started at that moment inherited).
                head = b""
                while b"\\r\\n\\r\\n" not in head: head += s.recv(1)
                print(json.dumps({"cn": cn, "alpn": s.selected_alpn_protocol(), "status": int(head.split(b" ")[1])}))
        """
        let out = try await Self.run("/usr/bin/python3", ["-c", script, caFile, String(port)])
        let object = try #require(try? JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any], "python said: \(out)")
        return (object["cn"] as? String ?? "", object["alpn"] as? String, object["status"] as? Int ?? 0)
    }

    /// Standard output and error together. The wait does not block a cooperative thread: with the
    /// cooperative threads blocked waiting for clients, the server under test could not answer them.
    static func run(_ executable: String, _ arguments: [String]) async throws -> String {
        String(decoding: try await ChildProcess.run(executable, arguments, error: .sameAsOutput).output, as: UTF8.self)
    }
}

/// `herald serve` with `http.tlsCertificate` / `http.tlsKey`: real TLS clients (HeraldHTTP's, curl, Python's
/// ssl) get answers over https, and the certificate is replaced while the server runs. Serialized: each test
/// runs a server and child processes.
@Suite(.serialized) struct TLSListenerTests {
    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [(LogLevel, String)] = []
        func add(_ level: LogLevel, _ line: String) { lock.lock(); lines.append((level, line)); lock.unlock() }
        func contains(_ level: LogLevel, _ text: String) -> Bool { lock.lock(); defer { lock.unlock() }; return lines.contains { $0.0 == level && $0.1.contains(text) } }
    }

    func start(_ files: TLSTestFiles, interval: Duration? = .milliseconds(200), log: Lines = Lines()) async throws -> ProviderServer {
        var settings = ProviderServer.Settings()
        settings.port = 0
        settings.simulatorEnabled = false
        settings.dataDirectory = files.path("data")
        settings.service.databasePath = files.path("data/herald.sqlite")
        settings.service.runWorkers = false
        settings.tls = files.files
        settings.tlsReloadInterval = interval
        return try await ProviderServer.start(settings, log: log.add)
    }

    func heraldClient(_ files: TLSTestFiles, port: Int) throws -> HTTP1Client {
        let tls = try TLSContext(client: TLSClientConfiguration(trust: .caFile(files.caFile), serverName: "localhost", alpn: ["http/1.1"]))
        return HTTP1Client(host: "127.0.0.1", port: port, tls: tls)
    }

    static func waitUntil(seconds: Double = 30, _ probe: () async throws -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if (try? await probe()) == true { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    @Test func clientsGetAnswersOverHTTPSWithHTTP1SelectedByALPN() async throws {
        let files = try TLSTestFiles(["first"])
        let server = try await start(files)
        defer { Task { await server.stop() } }

        let response = try await heraldClient(files, port: server.port).send(HTTPRequest(method: "GET", target: "/healthz"))
        #expect(response.status == 200)
        let probe = try await files.probe(port: server.port)
        #expect(probe.commonName == "first" && probe.alpn == "http/1.1" && probe.status == 200)
        let curl = try await TLSTestFiles.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code} %{http_version}", "--cacert", files.caFile,
                                                         "--resolve", "localhost:\(server.port):127.0.0.1", "https://localhost:\(server.port)/healthz"])
        #expect(curl == "200 1.1")
        // Plain HTTP on the TLS port gets no answer.
        await #expect(throws: (any Error).self) {
            _ = try await HTTP1Client(host: "127.0.0.1", port: server.port).send(HTTPRequest(method: "GET", target: "/healthz"), timeout: .seconds(5))
        }
    }

    @Test func anRSACertificateServesToo() async throws {
        let files = try TLSTestFiles(["rsa"], rsa: ["rsa"])
        let server = try await start(files)
        defer { Task { await server.stop() } }
        #expect(try await files.probe(port: server.port).commonName == "rsa")
    }

    /// Renewed files are picked up by the next check: new connections see the new certificate while one
    /// opened before keeps working with the old.
    @Test func replacedFilesServeNewConnectionsWhileOpenOnesContinue() async throws {
        let files = try TLSTestFiles(["first", "second"])
        let log = Lines()
        let server = try await start(files, log: log)
        defer { Task { await server.stop() } }
        #expect(server.tls?.identity.certificate.commonName == "first")

        // A keep-alive connection opened on the first certificate, used again after the swap; the script
        // renews the files itself (a rename over each, as certbot does) between the two.
        let script = """
        import json, os, socket, ssl, sys, time
        ca, port, directory = sys.argv[1], int(sys.argv[2]), sys.argv[3]
        ctx = ssl.create_default_context(cafile=ca)
        def get(s):
            s.sendall(b"GET /healthz HTTP/1.1\\r\\nHost: localhost\\r\\n\\r\\n")
            head = b""
            while b"\\r\\n\\r\\n" not in head: head += s.recv(1)
            length = int([l.split(b":")[1] for l in head.split(b"\\r\\n") if l.lower().startswith(b"content-length")][0])
            body = b""
            while len(body) < length: body += s.recv(length - len(body))
            return int(head.split(b" ")[1])
        def cn(s):
            return [v for rdn in s.getpeercert()["subject"] for (k, v) in rdn if k == "commonName"][0]
        def renew(source, target):
            with open(os.path.join(directory, source), "rb") as f: data = f.read()
            with open(os.path.join(directory, target + ".new"), "wb") as f: f.write(data)
            os.replace(os.path.join(directory, target + ".new"), os.path.join(directory, target))
        old = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=20), server_hostname="localhost")
        first = (cn(old), get(old))
        renew("second.pem", "live-cert.pem")
        renew("second.key", "live-key.pem")
        seen = None
        deadline = time.time() + 30
        while time.time() < deadline:
            with ctx.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=20), server_hostname="localhost") as s:
                seen = cn(s)
            if seen == "second": break
            time.sleep(0.1)
        print(json.dumps({"before": first[0], "beforeStatus": first[1], "after": seen, "oldConnection": cn(old), "oldStatus": get(old)}))
        """
        let output = try await TLSTestFiles.run("/usr/bin/python3", ["-c", script, files.caFile, String(server.port), files.directory.path])
        let result = try #require(try? JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], "python said: \(output)")
        #expect(result["before"] as? String == "first" && result["beforeStatus"] as? Int == 200)
        #expect(result["after"] as? String == "second")
        #expect(result["oldConnection"] as? String == "first" && result["oldStatus"] as? Int == 200)
        #expect(log.contains(.info, "TLS certificate reloaded (the files changed)"))
        #expect(server.tls?.identity.certificate.commonName == "second")
    }

    /// SIGHUP's entry point (`reload`), with no file watching: a bad file is refused and the certificate in
    /// use keeps serving; good files are taken.
    @Test func aReloadThatFailsKeepsTheCertificateInUse() async throws {
        let files = try TLSTestFiles(["first", "second"])
        let log = Lines()
        let server = try await start(files, interval: nil, log: log)
        defer { Task { await server.stop() } }
        let reloader = try #require(server.tls)

        // The second certificate with the first one's key.
        try files.install("second", key: "first")
        #expect(reloader.reload(reason: "SIGHUP") == false)
        #expect(log.contains(.error, "TLS certificate not reloaded (SIGHUP): http.tlsKey \(files.key) does not match the certificate"))
        #expect(log.contains(.error, "still serving serial"))
        #expect(try await files.probe(port: server.port).commonName == "first")

        // A half-written certificate.
        try files.replace(files.certificate, with: Data("-----BEGIN CERTIFICATE-----\nMIIB".utf8))
        #expect(reloader.reload(reason: "SIGHUP") == false)
        #expect(try await files.probe(port: server.port).commonName == "first")

        try files.install("second")
        #expect(reloader.reload(reason: "SIGHUP") == true)
        #expect(try await files.probe(port: server.port).commonName == "second")
        let response = try await heraldClient(files, port: server.port).send(HTTPRequest(method: "GET", target: "/healthz"))
        #expect(response.status == 200)
    }

    /// A failed reload from watching is not retried every tick, but the files' next change is.
    @Test func aWatchedBadFileIsRetriedWhenItChangesAgain() async throws {
        let files = try TLSTestFiles(["first", "second"])
        let log = Lines()
        let server = try await start(files, log: log)
        defer { Task { await server.stop() } }
        try files.install("second", key: "first")
        #expect(try await Self.waitUntil { log.contains(.error, "TLS certificate not reloaded (the files changed)") })
        #expect(try await files.probe(port: server.port).commonName == "first")
        try files.install("second")
        #expect(try await Self.waitUntil { try await files.probe(port: server.port).commonName == "second" })
    }

    @Test func aWrongConfigurationAtStartSaysWhichFileAndWhatIsWrong() async throws {
        let files = try TLSTestFiles(["first", "second"])
        func startError(_ certificate: String, _ key: String) async -> String {
            var settings = ProviderServer.Settings()
            settings.port = 0
            settings.simulatorEnabled = false
            settings.dataDirectory = files.path("data")
            settings.service.databasePath = files.path("data/herald.sqlite")
            settings.tls = .init(certificate: certificate, key: key)
            do {
                let server = try await ProviderServer.start(settings, log: { _, _ in })
                await server.stop()
                return "started"
            } catch { return "\(error)" }
        }
        let missing = files.path("nope.pem")
        #expect(await startError(missing, files.key) == "http.tlsCertificate \(missing): no such file")
        #expect(await startError(files.path("first.key"), files.key).hasPrefix("http.tlsCertificate \(files.path("first.key")): no certificate in it"))
        #expect(await startError(files.certificate, files.path("second.pem")).hasPrefix("http.tlsKey \(files.path("second.pem")): no private or public key found"))
        #expect(await startError(files.path("second.pem"), files.path("first.key")).hasPrefix("http.tlsKey \(files.path("first.key")) does not match the certificate in http.tlsCertificate \(files.path("second.pem"))"))
        // One file holding both is fine.
        let combined = files.path("combined.pem")
        try (String(contentsOfFile: files.path("first.key"), encoding: .utf8) + String(contentsOfFile: files.path("first.pem"), encoding: .utf8))
            .write(toFile: combined, atomically: true, encoding: .utf8)
        #expect(await startError(combined, combined) == "started")
    }
}
