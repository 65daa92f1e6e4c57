import Foundation

/// Runs a handler on each delivery of a signal (SIGHUP: reload) instead of the signal's default action,
/// which would end the process. Until a handler is set, the signal is ignored.
final class SignalWatcher: @unchecked Sendable {
    private let source: DispatchSourceSignal

    init(_ number: Int32) {
        signal(number, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: number, queue: DispatchQueue(label: "herald.signal.\(number)"))
        source.resume()
        SignalSources.keep(source)
    }

    func onSignal(_ handler: @escaping @Sendable () -> Void) { source.setEventHandler(handler: handler) }
}
