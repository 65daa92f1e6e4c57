import Foundation
import Testing
import HeraldTestSupport
@testable import HeraldSimulator

/// kalyke-apns (PyPI), a client that sends `iat` as a string today, against the simulator on real ports.
/// `make test` points `HERALD_KALYKE_PYTHON` at the pinned virtual environment of scripts/python-clients.sh;
/// a bare `swift test` skips it (`HERALD_KALYKE_PYTHON=$(scripts/python-clients.sh) swift test --filter kalyke`).
extension LiveTests {
    static let kalykePython = ProcessInfo.processInfo.environment["HERALD_KALYKE_PYTHON"]

    /// The library builds the token and the request; only the host and the CA it trusts are changed.
    static let kalykeScript = #"""
    import asyncio, ssl, sys
    from dataclasses import dataclass
    from httpx2 import AsyncClient
    from kalyke import ApnsClient, ApnsConfig, Payload, PayloadAlert

    host, ca, key, key_id, team_id, token = sys.argv[1:7]

    @dataclass(frozen=True)
    class SimulatorClient(ApnsClient):
        @property
        def _base_url(self) -> str:
            return f"https://{host}"

        def _init_client(self, apns_config):
            headers = apns_config.make_headers()
            headers["authorization"] = f"bearer {self._make_authorization()}"
            return AsyncClient(headers=headers, http2=True, verify=ssl.create_default_context(cafile=ca))

    client = SimulatorClient(use_sandbox=True, team_id=team_id, auth_key_id=key_id, auth_key_filepath=key)
    payload = Payload(alert=PayloadAlert(title="kalyke", body="string iat"))
    print(asyncio.run(client.send_message(device_token=token, payload=payload, apns_config=ApnsConfig(topic="com.example.app"))))
    """#

    @Test(.enabled(if: kalykePython != nil, "set HERALD_KALYKE_PYTHON to a Python with kalyke-apns"))
    func kalykeAPNsWithAStringIssueTimeIsAccepted() async throws {
        let live = try await Self.start()
        let key = try live.simulator.generateSigningKey(keyID: "KEY1234567", teamID: "TEAM123456")
        let keyFile = try #require(key.file)
        let script = live.directory.appendingPathComponent("kalyke_send.py")
        try Self.kalykeScript.write(to: script, atomically: true, encoding: .utf8)

        let (status, output, _) = try await ChildProcess.run(
            try #require(Self.kalykePython),
            [script.path, "127.0.0.1:\(live.ports.sandbox)", live.caFile, keyFile.path, "KEY1234567", "TEAM123456", live.token],
            error: .sameAsOutput)
        let printed = String(decoding: output, as: UTF8.self)
        #expect(status == 0, "kalyke-apns failed: \(printed)")
        let inbox = try #require(live.simulator.device(live.device.id)).inbox
        #expect(inbox.count == 1)
        #expect(inbox.first.map { printed.contains($0.apnsID) } == true, "the apns-id kalyke printed is the delivered one")
        await live.stop()
    }
}
