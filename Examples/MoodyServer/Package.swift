// swift-tools-version: 6.2
import PackageDescription

// The Moody model as an HTTP JSON service (Hummingbird), over OpenCoreData with an SQLite store. A package of its
// own so that the library's build stays small; it uses the library by path.
let package = Package(
    name: "MoodyServer",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "MoodyServer", targets: ["MoodyServer"]),
    ],
    dependencies: [
        .package(name: "OpenCoreData", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // Already in Hummingbird's graph; named here because the server uses them directly.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.81.0"),
    ],
    targets: [
        // The service: model classes, the Core Data stack, the routes (a library so that the tests start it in-process).
        .target(
            name: "MoodyServerCore",
            dependencies: [
                .product(name: "OpenCoreData", package: "OpenCoreData"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Resources/Moody.xcdatamodeld")]
        ),
        // `swift run MoodyServer [--store PATH] [--port N]`.
        .executableTarget(
            name: "MoodyServer",
            dependencies: ["MoodyServerCore", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(
            name: "MoodyServerTests",
            dependencies: [
                "MoodyServerCore",
                .product(name: "OpenCoreData", package: "OpenCoreData"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
