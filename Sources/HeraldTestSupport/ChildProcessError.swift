#if canImport(Glibc)
import Glibc
#endif

/// A child that could not be started: what was being started, the step that failed, and the C library's
/// text for the error number.
public struct ChildProcessError: Error, CustomStringConvertible {
    public let description: String

    init(_ executable: String, _ step: String, errno code: Int32) {
        description = "could not start \(executable): \(step) failed: \(String(cString: strerror(code))) (errno \(code))"
    }
}
