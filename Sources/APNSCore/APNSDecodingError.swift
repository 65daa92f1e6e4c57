/// Why bytes could not be read as an APNs payload or response body.
public struct APNSDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Dotted path of the offending member (`aps.alert.title-loc-args`), or `nil` for the
    /// document as a whole.
    public var path: String?
    /// What is wrong.
    public var problem: String

    public init(path: String?, problem: String) {
        self.path = path
        self.problem = problem
    }

    init(_ error: JSONParseError) {
        self.init(path: nil, problem: error.description)
    }

    public var description: String {
        if let path { return "\(path): \(problem)" }
        return problem
    }
}
