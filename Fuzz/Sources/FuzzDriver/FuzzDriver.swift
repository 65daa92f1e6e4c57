import CLibFuzzer
#if canImport(Glibc)
import Glibc
#endif

/// Runs libFuzzer with the process arguments (`-max_total_time=60 corpus/`, a crash file, …) and exits
/// with its status.
///
/// The fuzz target must also export its callback as `LLVMFuzzerTestOneInput`: linking
/// `-sanitize=fuzzer` pulls in libFuzzer's own `main`, which needs that symbol even though
/// SwiftPM's `main` (this program's top-level code) is the one that runs.
public func runLibFuzzer(_ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    // Swift's crash backtracer runs before libFuzzer's signal handler, reads stack memory that
    // AddressSanitizer has poisoned, and turns a plain trap into a misleading ASan report (and a
    // slow one). Environment variables are read at startup, so set it and start again.
    if getenv("SWIFT_BACKTRACE") == nil {
        setenv("SWIFT_BACKTRACE", "enable=no", 1)
        execv("/proc/self/exe", CommandLine.unsafeArgv)
    }
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, testOneInput))
}
