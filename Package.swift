// swift-tools-version: 6.2
import CompilerPluginSupport
import PackageDescription

let package = Package(
    name: "OpenCoreData",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "OpenCoreData", targets: ["OpenCoreData"]),
        .executable(name: "moody", targets: ["moody"]),
    ],
    dependencies: [
        .package(url: "https://github.com/swiftlang/swift-syntax.git", from: "603.0.1"),
    ],
    targets: [
        // The platform's SQLite (libsqlite3-dev on Debian/Ubuntu).
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite3"])]
        ),
        // Implementation of the @Managed macro (the replacement for @NSManaged).
        .macro(
            name: "OpenCoreDataMacros",
            dependencies: [
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
            ]
        ),
        // The library: `import OpenCoreData` where Apple platforms `import CoreData`.
        .target(
            name: "OpenCoreData",
            dependencies: ["CSQLite", "OpenCoreDataMacros"]
        ),
        // The objc.io Moody app as a terminal program.
        .executableTarget(
            name: "moody",
            dependencies: ["OpenCoreData"],
            resources: [.copy("Resources/Moody.xcdatamodeld")]
        ),
        .testTarget(
            name: "OpenCoreDataTests",
            dependencies: ["OpenCoreData", "CSQLite"],
            resources: [.copy("Resources/Library.xcdatamodeld")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
