// swift-tools-version: 6.2
import CompilerPluginSupport
import PackageDescription

let package = Package(
    name: "OpenCoreData",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "OpenCoreData", targets: ["OpenCoreData"]),
        .library(name: "Skopelos", targets: ["Skopelos"]),
        // Combine publishers over OpenCombine, for code ported from Apple platforms that uses Combine (optional: the
        // OpenCoreData product does not depend on it).
        .library(name: "OpenCoreDataCombine", targets: ["OpenCoreDataCombine"]),
        // Apple's SwiftData API (`@Model`, `ModelContainer`, `ModelContext`, `FetchDescriptor`) over OpenCoreData.
        .library(name: "OpenSwiftData", targets: ["OpenSwiftData"]),
        .executable(name: "moody", targets: ["moody"]),
        .executable(name: "moody-swiftdata", targets: ["moody-swiftdata"]),
        .executable(name: "coredata", targets: ["coredata"]),
    ],
    dependencies: [
        .package(url: "https://github.com/swiftlang/swift-syntax.git", from: "603.0.1"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/OpenCombine/OpenCombine.git", from: "0.14.0"),
        // `swift package generate-documentation` (the DocC catalogs under Sources/*/…docc); builds nothing else.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // The platform's SQLite (libsqlite3-dev on Debian/Ubuntu).
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite3"])]
        ),
        // The platform's zlib (zlib1g-dev): raw DEFLATE for model caches (Z_MODELCACHE).
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        // Memory hints Swift cannot spell (a prefetch), as inline C.
        .target(name: "CMemoryHints"),
        // Implementation of the @Managed macro (the replacement for @NSManaged).
        .macro(
            name: "OpenCoreDataMacros",
            dependencies: [
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
            ]
        ),
        // Implementation of SwiftData's macros (@Model, @Attribute, @Relationship, @Transient, #Unique, #Index,
        // @ModelActor) for OpenSwiftData.
        .macro(
            name: "OpenSwiftDataMacros",
            dependencies: [
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
            ]
        ),
        // The library's lowest layers, targets of their own so that the compiler enforces that they use nothing above
        // them (README "Layout"). Their files stay in their folders under Sources/OpenCoreData, which excludes them;
        // OpenCoreData re-exports them (Exports.swift), so users still write one `import OpenCoreData`.
        // Support: SHA-2, DEFLATE, the XML reader, error codes, locks. Uses nothing of ours.
        .target(name: "OpenCoreDataSupport", dependencies: ["CZlib"], path: "Sources/OpenCoreData/Support"),
        // Predicate: NSPredicate, NSExpression, NSSortDescriptor, the format parser, evaluation, key-value coding.
        .target(
            name: "OpenCoreDataPredicate",
            dependencies: ["OpenCoreDataSupport", "CMemoryHints"],
            path: "Sources/OpenCoreData/Predicate"
        ),
        // Foundation: what Linux Foundation lacks (UndoManager, ValueTransformer, keyed archives, property lists).
        .target(
            name: "OpenCoreDataFoundation",
            dependencies: ["OpenCoreDataSupport", "OpenCoreDataPredicate"],
            path: "Sources/OpenCoreData/Foundation"
        ),
        // The library: `import OpenCoreData` where Apple platforms `import CoreData`.
        .target(
            name: "OpenCoreData",
            dependencies: [
                "OpenCoreDataSupport", "OpenCoreDataPredicate", "OpenCoreDataFoundation", "CSQLite", "CZlib", "CMemoryHints",
                "OpenCoreDataMacros", .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Support", "Predicate", "Foundation"]
        ),
        // Combine publishers for Core Data (`objectWillChange`, `publisher(for: \.key)`, fetched results) over OpenCombine.
        .target(
            name: "OpenCoreDataCombine",
            dependencies: [
                "OpenCoreData",
                .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "OpenCombineFoundation", package: "OpenCombine"),
                .product(name: "OpenCombineDispatch", package: "OpenCombine"),
            ]
        ),
        // SwiftData's API on Linux: `import OpenSwiftData` where Apple platforms `import SwiftData`.
        .target(name: "OpenSwiftData", dependencies: ["OpenCoreData", "OpenSwiftDataMacros"]),
        // The Skopelos data access layer (read / write over a main context and write contexts), on the public API.
        .target(name: "Skopelos", dependencies: ["OpenCoreData"]),
        // The objc.io Moody app as a terminal program.
        .executableTarget(
            name: "moody",
            dependencies: ["OpenCoreData", "Skopelos"],
            resources: [.copy("Resources/Moody.xcdatamodeld")]
        ),
        // The Moody tour through OpenSwiftData (SwiftData's API).
        .executableTarget(name: "moody-swiftdata", dependencies: ["OpenSwiftData"]),
        // The `coredata` command-line tool: `coredata model …` and `coredata store …`.
        .executableTarget(
            name: "coredata",
            dependencies: ["OpenCoreData", "CSQLite", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .testTarget(
            name: "OpenCoreDataTests",
            dependencies: [
                "OpenCoreData", "OpenCoreDataSupport", "OpenCoreDataPredicate", "OpenCoreDataFoundation", "CSQLite",
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Resources/Library.xcdatamodeld")]
        ),
        .testTarget(
            name: "SkopelosTests",
            dependencies: ["Skopelos", "OpenCoreData"],
            resources: [.copy("Resources/DALModel.xcdatamodeld")]
        ),
        .testTarget(name: "OpenCoreDataCombineTests", dependencies: ["OpenCoreDataCombine", "OpenCoreData"]),
        .testTarget(name: "OpenSwiftDataTests", dependencies: ["OpenSwiftData", "OpenCoreData"]),
        // Expansion and diagnostic tests of the @Managed macros.
        .testTarget(
            name: "OpenCoreDataMacrosTests",
            dependencies: [
                "OpenCoreDataMacros",
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
            ]
        ),
        // Expansion and diagnostic tests of the SwiftData macros.
        .testTarget(
            name: "OpenSwiftDataMacrosTests",
            dependencies: [
                "OpenSwiftDataMacros",
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
