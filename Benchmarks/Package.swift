// swift-tools-version: 6.2
// Benchmarks of OpenCoreData against the raw SQLite C API and GRDB, in one process (see README.md).
// A separate package, so that the library never depends on GRDB.
import PackageDescription

let package = Package(
    name: "OpenCoreDataBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "OpenCoreData", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
    ],
    targets: [
        .systemLibrary(name: "CSQLiteBench", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .executableTarget(
            name: "Benchmarks",
            dependencies: [
                .product(name: "OpenCoreData", package: "OpenCoreData"),
                .product(name: "GRDB", package: "GRDB.swift"),
                "CSQLiteBench",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
