// swift-tools-version:6.0
// libFuzzer targets for Herald's parsers (docs/security.md, "Fuzzing"). A package of its own so that
// `swift build` and `swift test` of Herald never build them; `make fuzz` / `make fuzz-smoke` do, with
// `-sanitize=fuzzer,address` on every Swift module so the parsers themselves are instrumented.
import Foundation
import PackageDescription

// A local package's identity is its directory name (`herald`, or a worktree's name), not `Herald`.
let herald = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

func fuzzTarget(_ name: String) -> Target {
    .executableTarget(
        name: name,
        dependencies: ["FuzzDriver", .product(name: "_HeraldFuzzing", package: herald)],
        // gold links the ASan runtime with a warning per exported local symbol (hundreds); lld is quiet.
        linkerSettings: [.unsafeFlags(["-use-ld=lld"], .when(platforms: [.linux]))])
}

let package = Package(
    name: "HeraldFuzz",
    platforms: [.macOS(.v14)],
    dependencies: [.package(path: "..")],
    targets: [
        .target(name: "CLibFuzzer"),
        .target(name: "FuzzDriver", dependencies: ["CLibFuzzer"]),
        fuzzTarget("fuzz-http1"),
        fuzzTarget("fuzz-apns-json"),
        fuzzTarget("fuzz-server-json"),
        fuzzTarget("fuzz-legacy"),
        fuzzTarget("fuzz-http1-response"),
    ]
)
