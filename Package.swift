// swift-tools-version:6.0
// Herald: a self-hosted push notification platform (see README.md and docs/).
// No package dependencies: system C libraries come in as system-library targets.
import PackageDescription

let package = Package(
    name: "Herald",
    platforms: [.macOS(.v14), .iOS(.v15)],
    products: [
        .executable(name: "herald", targets: ["herald"]),
        .library(name: "HeraldClient", targets: ["HeraldClient"]),
        .library(name: "APNSClient", targets: ["APNSClient"]),
        // Not API: Fuzz/Package.swift can only depend on products, and its targets reach the parsers
        // in these modules (through public and `@_spi(Fuzzing)` declarations).
        .library(name: "_HeraldFuzzing", targets: ["APNSCore", "HeraldHTTP", "HeraldServer"]),
    ],
    targets: [
        // C layer
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "openssl",
                       providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]),
        .systemLibrary(name: "CNGHTTP2", path: "Sources/CNGHTTP2", pkgConfig: "libnghttp2",
                       providers: [.apt(["libnghttp2-dev"]), .brew(["nghttp2"])]),
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        .systemLibrary(name: "CPostgres", path: "Sources/CPostgres", pkgConfig: "libpq",
                       providers: [.apt(["libpq-dev"]), .brew(["libpq"])]),
        .target(name: "CHeraldShims", dependencies: ["COpenSSL", "CSQLite"]),

        // JSON: one value model, parser and writer for the APNs model, the server and JWTs (no Foundation)
        .target(name: "HeraldJSON"),
        // Crypto: keys, certificates, ES256, JWT, secrets at rest (OpenSSL)
        .target(name: "HeraldCrypto", dependencies: ["HeraldJSON", "COpenSSL", "CHeraldShims"]),
        // I/O: epoll event loops, sockets, timers, TLS
        .target(name: "HeraldIO", dependencies: ["HeraldCrypto", "COpenSSL", "CHeraldShims"]),
        // HTTP: HTTP/1.1 server, HTTP/2 client and server connections (nghttp2)
        .target(name: "HeraldHTTP", dependencies: ["HeraldIO", "CNGHTTP2", "CHeraldShims"]),
        // APNs model: payload, request, validation, reasons, tokens, legacy binary codec (Foundation only)
        .target(name: "APNSCore", dependencies: ["HeraldJSON"]),
        // APNs client: credentials, provider tokens, connection pool, retries
        .target(name: "APNSClient", dependencies: ["APNSCore", "HeraldHTTP", "HeraldCrypto"]),
        // APNs simulator: provider API, legacy ports, devices, store-and-forward, faults
        .target(name: "HeraldSimulator", dependencies: ["APNSCore", "HeraldJSON", "HeraldHTTP", "HeraldCrypto"]),
        // Storage contract: the `HeraldStorage` protocol, its records and errors (no C)
        .target(name: "HeraldStore", dependencies: ["HeraldJSON"]),
        // Storage on one SQLite file (embedded, the default)
        .target(name: "HeraldSQLite", dependencies: ["HeraldStore", "CSQLite", "CHeraldShims"]),
        // Storage on PostgreSQL (libpq): the same contract, for several nodes on one database
        .target(name: "HeraldPostgres", dependencies: ["HeraldJSON", "HeraldStore", "CPostgres"]),
        // Provider service: REST API, registry, push API, queue, dispatcher, scheduler
        .target(name: "HeraldServer", dependencies: ["HeraldJSON", "HeraldStore", "HeraldSQLite", "HeraldPostgres", "APNSClient", "HeraldHTTP", "HeraldCrypto"]),
        // The `herald serve` process, assembled in one place: store, service, HTTP listener, built-in simulator, log
        .target(name: "HeraldProvider", dependencies: ["HeraldServer", "HeraldSimulator", "HeraldHTTP", "HeraldIO", "HeraldPostgres"]),
        // App SDK: Foundation only
        .target(name: "HeraldClient"),
        // Command line: subcommands; `herald` is a thin main
        .target(name: "HeraldCLI", dependencies: ["APNSClient", "HeraldIO", "HeraldSimulator", "HeraldServer", "HeraldProvider", "HeraldClient"]),
        // jemalloc replaces glibc's malloc for the whole process (Swift runtime and nghttp2 included): Swift
        // allocates per request, often on one thread and frees on another, and glibc's per-thread arenas
        // then grow a page at a time. Measured: docs/performance.md (fan-out +10 %, herald send +4 %).
        // ... with the settings in Sources/CJemallocSettings (fewer arenas, freed pages returned within a second).
        .target(name: "CJemallocSettings"),
        .executableTarget(name: "herald", dependencies: ["HeraldCLI", "CJemallocSettings"],
                          linkerSettings: [.linkedLibrary("jemalloc", .when(platforms: [.linux]))]),
        // The SDK example that runs on Linux (Examples/LinuxLoop): a library so CI runs it as a test too.
        .target(name: "HeraldLinuxLoop", dependencies: ["HeraldClient", "HeraldServer", "HeraldProvider", "HeraldSimulator", "HeraldHTTP"],
                path: "Examples/LinuxLoop/Loop"),
        .executableTarget(name: "herald-linux-loop", dependencies: ["HeraldLinuxLoop"], path: "Examples/LinuxLoop/Main"),
        // Tests only: `ChildProcess` starts openssl, sh, python clients and `herald` without Foundation's Process
        .target(name: "HeraldTestSupport"),

        .testTarget(name: "HeraldCryptoTests", dependencies: ["HeraldCrypto", "HeraldTestSupport"]),
        .testTarget(name: "HeraldIOTests", dependencies: ["HeraldIO", "HeraldCrypto"]),
        .testTarget(name: "HeraldHTTPTests", dependencies: ["HeraldHTTP", "HeraldIO", "HeraldCrypto", "HeraldTestSupport"]),
        .testTarget(name: "APNSCoreTests", dependencies: ["APNSCore", "HeraldJSON"], resources: [.copy("Golden")]),
        .testTarget(name: "APNSClientTests", dependencies: ["APNSClient", "HeraldSimulator", "HeraldCrypto"]),
        .testTarget(name: "HeraldSimulatorTests", dependencies: ["HeraldSimulator", "APNSClient", "HeraldCrypto", "HeraldTestSupport"]),
        .testTarget(name: "HeraldStoreTests", dependencies: ["HeraldStore", "HeraldSQLite", "HeraldPostgres", "HeraldTestSupport"]),
        .testTarget(name: "HeraldServerTests", dependencies: ["HeraldServer", "HeraldProvider", "HeraldSimulator", "APNSClient", "HeraldSQLite", "HeraldPostgres", "HeraldTestSupport"]),
        .testTarget(name: "HeraldClientTests", dependencies: ["HeraldClient"]),
        .testTarget(name: "HeraldCLITests", dependencies: ["HeraldCLI", "HeraldProvider", "HeraldTestSupport"]),
        .testTarget(name: "LinuxLoopTests", dependencies: ["HeraldLinuxLoop"]),
        .testTarget(name: "HeraldTestSupportTests", dependencies: ["HeraldTestSupport"]),
    ]
)
