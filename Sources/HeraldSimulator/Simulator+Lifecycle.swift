import Foundation
import HeraldCrypto
import HeraldHTTP

extension Simulator {
    /// Opens the listeners the configuration asks for through `transport` (Herald's own servers by
    /// default) and starts the burst ticker. Returns the bound ports (useful with port 0).
    @discardableResult
    public func start(transport: any SimulatorTransport = NetworkTransport()) async throws -> SimulatorPorts {
        guard !isRunning else { throw SimulatorError.invalidConfiguration(field: "start", message: "the simulator is already running; stop it first") }
        let c = configuration
        var ports = SimulatorPorts()
        let tls: SimulatorTLS? = c.useTLS || c.legacyGatewayPort != nil || c.legacyFeedbackPort != nil
            ? SimulatorTLS(identity: try serverIdentity(), clientCertificateAuthority: try certificateAuthority().certificate,
                           handshakeDelayMilliseconds: { [state] in state.faultConfiguration.tlsHandshakeDelayMilliseconds })
            : nil
        do {
            if let port = c.sandboxPort {
                ports.sandbox = try await transport.serveProvider(host: c.host, port: port, tls: c.useTLS ? tls : nil,
                                                                  delegate: providerService(for: .sandbox))
            }
            if let port = c.productionPort {
                ports.production = try await transport.serveProvider(host: c.host, port: port, tls: c.useTLS ? tls : nil,
                                                                     delegate: providerService(for: .production))
            }
            if let port = c.inspectionPort {
                ports.inspection = try await transport.serveHTTP(host: c.host, port: port, handler: inspectionHandler)
            }
            if let port = c.legacyGatewayPort, let tls {
                ports.legacyGateway = try await transport.serveLegacy(host: c.host, port: port, tls: tls) { [self] certificate in
                    legacyGatewayConnection(environment: c.legacyEnvironment, peerCertificate: certificate)
                }
            }
            if let port = c.legacyFeedbackPort, let tls {
                ports.legacyFeedback = try await transport.serveLegacy(host: c.host, port: port, tls: tls) { [self] certificate in
                    legacyFeedbackConnection(environment: c.legacyEnvironment, peerCertificate: certificate)
                }
            }
        } catch {
            await transport.shutdown()
            throw error
        }
        let ticker = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(100))
                self?.tick()
            }
        }
        _ = setRunning(RunningState(transport: transport, ports: ports, ticker: ticker))
        return ports
    }

    /// Closes the listeners, ends device streams and writes pending state to the data directory.
    public func stop() async {
        guard let running = setRunning(nil) else { return }
        running.ticker.cancel()
        state.finishAllStreams()
        await running.transport.shutdown()
        saveState()
        flush()
    }

    /// The ports of a running simulator, nil when stopped.
    public var ports: SimulatorPorts? {
        guard isRunning else { return nil }
        return runningPorts
    }
}
