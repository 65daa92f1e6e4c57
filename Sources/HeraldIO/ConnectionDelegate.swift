/// Receives what happens on a `StreamConnection`, on its loop thread.
public protocol ConnectionDelegate: AnyObject {
    /// Connected (and, with TLS, handshaken): the stream can carry the application protocol.
    func streamDidBecomeReady(_ stream: StreamConnection)
    /// Bytes arrived. The buffer is only valid during the call.
    func stream(_ stream: StreamConnection, didRead bytes: UnsafeRawBufferPointer)
    /// Everything written so far has reached the kernel: a chance to produce more.
    func streamDidDrain(_ stream: StreamConnection)
    /// The peer closed its side for writing (EOF): nothing more will be read, but what is written still
    /// reaches it. The default closes the stream; a server that still owes an answer writes it first.
    func streamDidReachEndOfInput(_ stream: StreamConnection)
    /// The stream is closed; `error` is nil for an orderly close.
    func streamDidClose(_ stream: StreamConnection, error: IOError?)
}

extension ConnectionDelegate {
    public func streamDidDrain(_ stream: StreamConnection) {}
    public func streamDidReachEndOfInput(_ stream: StreamConnection) { stream.close() }
}

