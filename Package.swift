// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "OpenSpotlight",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "OpenCoreSpotlight", targets: ["OpenCoreSpotlight"]),
        .library(name: "CoreSpotlightShim", targets: ["CoreSpotlightShim"]),
        // Apple's module names on Linux: depend on these with `condition: .when(platforms: [.linux])` and write
        // `import CoreSpotlight` / `import UniformTypeIdentifiers` / `import MobileCoreServices` as on Apple's
        // platforms (README, "The same sources on macOS and Linux").
        .library(name: "CoreSpotlight", targets: ["CoreSpotlight"]),
        .library(name: "UniformTypeIdentifiers", targets: ["UniformTypeIdentifiers"]),
        .library(name: "MobileCoreServices", targets: ["MobileCoreServices"]),
        .library(name: "SpotlightQueryLanguage", targets: ["SpotlightQueryLanguage"]),
        .library(name: "SpotlightGRDB", targets: ["SpotlightGRDB"]),
        .library(name: "SpotlightSystem", targets: ["SpotlightSystem"]),
        .library(name: "SpotlightTestSupport", targets: ["SpotlightTestSupport"]),
        .executable(name: "spotlight", targets: ["spotlight"]),
        .executable(name: "spotlight-demo", targets: ["spotlight-demo"]),
        .executable(name: "spotlight-public", targets: ["spotlight-public"]),
        .library(name: "SpotlightWebMarkup", targets: ["SpotlightWebMarkup"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    ],
    targets: [
        // Debian's libzstd, for the engine's stored attributes (scripts/bootstrap.sh installs libzstd-dev).
        .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),
        // systemd's sd-bus (Debian's libsystemd-dev, installed by scripts/bootstrap.sh), for the desktop's search providers.
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        // Debian's libxml2 (libxml2-dev, installed by scripts/bootstrap.sh): the HTML parser for web markup, the XML
        // parser for sitemaps.
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        // Unicode folding, word splitting and wildcard matching shared by the query language and the engine.
        .target(name: "SpotlightText"),
        // The Spotlight query language: lexer, parser, AST, canonical printer, diagnostics, evaluation semantics.
        // No SQL, no storage.
        .target(name: "SpotlightQueryLanguage", dependencies: ["SpotlightText"]),
        // Storage (SQLite through GRDB), the text index, query execution and ranking. Package-visible only: apps use
        // OpenCoreSpotlight (and AppSearch), the system half SpotlightSystem.
        .target(
            name: "SpotlightEngine",
            dependencies: [
                "SpotlightText", "SpotlightQueryLanguage", "CZstd",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HeapModule", package: "swift-collections"),
            ]
        ),
        // `UTType` and the `kUTType…` constants where Linux lacks UniformTypeIdentifiers (Apple's framework elsewhere).
        .target(name: "OpenUniformTypeIdentifiers"),
        // Apple's Core Spotlight API with Apple's names, over the engine.
        .target(name: "OpenCoreSpotlight", dependencies: ["SpotlightEngine", "SpotlightQueryLanguage", "OpenUniformTypeIdentifiers"]),
        // Apple's module names, re-exporting ours on Linux (empty on Apple platforms, where the frameworks exist).
        .target(name: "CoreSpotlight", dependencies: [
            .target(name: "OpenCoreSpotlight", condition: .when(platforms: [.linux, .windows, .android, .wasi, .openbsd])),
        ]),
        .target(name: "UniformTypeIdentifiers", dependencies: [
            .target(name: "OpenUniformTypeIdentifiers", condition: .when(platforms: [.linux, .windows, .android, .wasi, .openbsd])),
        ]),
        .target(name: "MobileCoreServices", dependencies: [
            .target(name: "OpenUniformTypeIdentifiers", condition: .when(platforms: [.linux, .windows, .android, .wasi, .openbsd])),
        ]),
        // Re-exports Apple's CoreSpotlight where it exists, OpenCoreSpotlight elsewhere.
        .target(name: "CoreSpotlightShim", dependencies: [
            .target(name: "OpenCoreSpotlight", condition: .when(platforms: [.linux, .windows, .android, .wasi, .openbsd])),
        ]),
        // What NSCoreDataCoreSpotlightDelegate is for Core Data, for GRDB databases.
        .target(
            name: "SpotlightGRDB",
            dependencies: ["OpenCoreSpotlight", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        // The system half: apps known to the system, continuation, reindex extensions, index health.
        .target(name: "SpotlightSystem", dependencies: ["OpenCoreSpotlight", "SpotlightEngine"]),
        // Spotlight on the Linux desktop: GNOME Shell's and KRunner's search providers over D-Bus, and the local search
        // page (Hummingbird on the loopback interface).
        .target(
            name: "SpotlightDesktop",
            dependencies: [
                "SpotlightSystem", "OpenCoreSpotlight", "CSystemd",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Web markup (schema.org JSON-LD and microdata, Open Graph, Twitter cards, App Links, Smart App Banners),
        // robots.txt and sitemaps: pure parsing, no network.
        .target(name: "SpotlightWebMarkup", dependencies: ["CLibXML2"]),
        // The public index service (issue 16): reports with a crowd threshold, site registration and the crawler,
        // public search, all state in PostgreSQL.
        .target(
            name: "SpotlightPublic",
            dependencies: [
                "SpotlightWebMarkup",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Migrations")]
        ),
        .executableTarget(
            name: "spotlight-public",
            dependencies: ["SpotlightPublic", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // The device side of the public index: sending queued reports and searching the public index.
        .target(
            name: "SpotlightPublicClient",
            dependencies: [
                "SpotlightSystem", "OpenCoreSpotlight", "SpotlightEngine",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        // The `spotlight` command: search every app's index on the machine.
        .executableTarget(
            name: "spotlight",
            dependencies: ["SpotlightSystem", "SpotlightDesktop", "SpotlightPublicClient", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .executableTarget(name: "spotlight-demo", dependencies: ["OpenCoreSpotlight"]),
        // The benchmark command (issue 5): our engine's figures in the peers' JSON schema. Not part of the tests,
        // except its smoke mode.
        .executableTarget(
            name: "spotlight-bench",
            dependencies: ["OpenCoreSpotlight", "SpotlightEngine"],
            path: "Benchmarks/Sources/spotlight-bench"
        ),
        // The seeds' sample apps.
        .executableTarget(name: "colleagues", dependencies: ["OpenCoreSpotlight", "SpotlightSystem"], path: "Examples/Colleagues"),
        .executableTarget(name: "smoothies", dependencies: ["OpenCoreSpotlight", "SpotlightSystem"], path: "Examples/Smoothies"),
        .executableTarget(
            name: "tags",
            dependencies: ["SpotlightGRDB", "OpenCoreSpotlight", "SpotlightSystem", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Examples/Tags"
        ),
        // The README's first example.
        .executableTarget(name: "quickstart", dependencies: ["CoreSpotlight"], path: "Examples/Quickstart"),
        // Testing support shipped as a product: a seeded generator for fuzz and model tests.
        .target(name: "SpotlightTestSupport"),
        // A child process for crash and multi-process tests.
        .executableTarget(name: "openspotlight-test-helper", dependencies: ["OpenCoreSpotlight", "SpotlightEngine"]),

        .testTarget(name: "SpotlightTextTests", dependencies: ["SpotlightText", "SpotlightTestSupport"]),
        .testTarget(name: "SpotlightQueryLanguageTests", dependencies: ["SpotlightQueryLanguage", "SpotlightTestSupport"]),
        .testTarget(
            name: "SpotlightEngineTests",
            dependencies: ["SpotlightEngine", "SpotlightTestSupport", "SpotlightQueryLanguage", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .testTarget(
            name: "OpenCoreSpotlightTests",
            dependencies: [
                "OpenCoreSpotlight", "CoreSpotlightShim", "SpotlightEngine", "openspotlight-test-helper", "SpotlightTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(name: "BenchmarkSmokeTests", dependencies: ["spotlight-bench"]),
        // Apple-style app code with Apple's module names, in both language modes (issue 11): it must compile
        // unchanged and run.
        .testTarget(
            name: "AppleSampleCodeTests",
            dependencies: ["CoreSpotlight", "UniformTypeIdentifiers"]
        ),
        .testTarget(
            name: "AppleSampleCodeSwift5Tests",
            dependencies: ["CoreSpotlight", "UniformTypeIdentifiers", "MobileCoreServices"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(
            name: "SpotlightGRDBTests",
            dependencies: ["SpotlightGRDB", "OpenCoreSpotlight", "tags", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .testTarget(
            name: "SpotlightSystemTests",
            dependencies: [
                "SpotlightSystem", "SpotlightDesktop", "spotlight", "colleagues", "smoothies", "spotlight-demo", "tags",
                // The public index (issue 16): the service binary, the device side, and a web site for the crawler.
                "spotlight-public", "SpotlightPublicClient",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        .testTarget(
            name: "SpotlightWebMarkupTests",
            dependencies: ["SpotlightWebMarkup"],
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
