// swift-tools-version: 6.2
// libFuzzer targets for OpenCoreData's input readers (see RELIABILITY.md and run.sh).
// A separate package so that the main package's `swift test` never builds them; build with
// `swift build -c release -Xswiftc -sanitize=fuzzer -Xswiftc -parse-as-library` (run.sh does).
import PackageDescription

let package = Package(
    name: "OpenCoreDataFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "OpenCoreData", path: ".."),
    ],
    targets: [
        .systemLibrary(name: "CSQLiteFuzz", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // What every target shares: a RAM scratch directory and byte-to-file helpers.
        .target(name: "FuzzSupport"),
        // The entry point: SwiftPM names an executable's main `<Module>_main`; it calls libFuzzer's driver.
        .target(name: "CFuzzDriver"),
        // Predicate and expression format strings: parse, format, re-parse, evaluate.
        .executableTarget(name: "FuzzPredicateParser", dependencies: [
            .product(name: "OpenCoreData", package: "OpenCoreData"), "FuzzSupport", "CFuzzDriver",
        ]),
        // A model package's `contents` XML: load, entity version hashes, version checksum.
        .executableTarget(name: "FuzzModelXML", dependencies: [
            .product(name: "OpenCoreData", package: "OpenCoreData"), "FuzzSupport", "CFuzzDriver",
        ]),
        // A whole SQLite store file: metadata and the cached model.
        .executableTarget(name: "FuzzStoreMetadata", dependencies: [
            .product(name: "OpenCoreData", package: "OpenCoreData"), "FuzzSupport", "CFuzzDriver",
        ]),
        // The Z_METADATA plist blob, written into a valid store template: metadata and the cached model.
        .executableTarget(name: "FuzzStoreMetadataPlist", dependencies: [
            .product(name: "OpenCoreData", package: "OpenCoreData"), "FuzzSupport", "CFuzzDriver", "CSQLiteFuzz",
        ]),
    ],
    swiftLanguageModes: [.v6]
)
