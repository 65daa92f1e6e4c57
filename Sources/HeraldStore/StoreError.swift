/// Raised by the store when a request conflicts with stored data; the server maps it to 404/409.
public enum StoreError: Error, Sendable, Equatable {
    case notFound
    case conflict(String)
}
