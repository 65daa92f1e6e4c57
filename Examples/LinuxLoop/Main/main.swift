import Foundation
import HeraldLinuxLoop

// `swift run herald-linux-loop`: the whole loop, printed step by step; exits 1 at the first failed step.
let done = DispatchSemaphore(value: 0)
nonisolated(unsafe) var failure: Error?
Task.detached {
    do { try await LinuxLoop.run() } catch { failure = error }
    done.signal()
}
done.wait()
if let failure {
    FileHandle.standardError.write(Data("herald-linux-loop: \(failure)\n".utf8))
    exit(1)
}
print("the whole loop works")
