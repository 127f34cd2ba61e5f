import Hummingbird
import Logging
import OpenCoreData
import ServiceLifecycle
import Synchronization

/// How to run a ``MoodyServer``.
public struct ServerConfiguration: Sendable {
    public var store: StoreLocation
    /// The address to listen on (loopback by default).
    public var host = "127.0.0.1"
    /// 0: any free port (``MoodyServer/listeningPort()`` tells which).
    public var port = 8080
    /// Request bodies beyond this are refused with 413.
    public var maxBodySize = 64 * 1024
    /// SIGTERM and SIGINT shut the server down gracefully (the executable); tests call ``MoodyServer/shutdown()``.
    public var handlesSignals = true

    public init(store: StoreLocation, host: String = "127.0.0.1", port: Int = 8080, maxBodySize: Int = 64 * 1024, handlesSignals: Bool = true) {
        self.store = store
        self.host = host
        self.port = port
        self.maxBodySize = maxBodySize
        self.handlesSignals = handlesSignals
    }

    /// Reads `--store PATH` / `MOODY_STORE` (default `./moody-server.sqlite`) and `--port N` / `PORT` (default
    /// 8080); the command line wins over the environment.
    public static func parse(arguments: [String], environment: [String: String]) throws(ConfigurationError) -> ServerConfiguration {
        var storeText = environment["MOODY_STORE"] ?? "./moody-server.sqlite"
        var portText = environment["PORT"] ?? "8080"
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--store", "--port":
                guard index + 1 < arguments.count else { throw ConfigurationError("\(argument) needs a value") }
                if argument == "--store" { storeText = arguments[index + 1] } else { portText = arguments[index + 1] }
                index += 2
            default:
                throw ConfigurationError("unknown argument '\(argument)'\n\(usage)")
            }
        }
        guard let port = Int(portText), (0...65535).contains(port) else { throw ConfigurationError("the port must be a number from 0 to 65535, not '\(portText)'") }
        return ServerConfiguration(store: try StoreLocation(parsing: storeText), port: port)
    }

    public static let usage = """
        usage: MoodyServer [--store PATH] [--port N]
          --store PATH  the SQLite store (env MOODY_STORE; default ./moody-server.sqlite)
          --port N      the port on 127.0.0.1 (env PORT; default 8080; 0: any free port)
        """
}

/// The Moody HTTP service: the store, the live feed and the Hummingbird application, run as one service group.
///
/// ```swift
/// let server = try MoodyServer(configuration: ServerConfiguration(store: StoreLocation(fileURL: url), port: 0))
/// async let running: Void = server.run()
/// let port = await server.listeningPort()
/// …
/// await server.shutdown()
/// try await running
/// ```
public final class MoodyServer: Sendable {
    public let configuration: ServerConfiguration
    let store: MoodStore
    let feed: LiveFeed
    private let serviceGroup: ServiceGroup
    private let port: AsyncStream<Int>
    private let portContinuation: AsyncStream<Int>.Continuation
    private let boundPort = Mutex<Int?>(nil)

    public init(configuration: ServerConfiguration, logger: Logger = Logger(label: "MoodyServer")) throws {
        self.configuration = configuration
        store = try MoodStore(location: configuration.store, logger: logger)
        feed = LiveFeed(store: store)
        let routes = Routes(store: store, feed: feed, undoLog: UndoLog(), maxBodySize: configuration.maxBodySize)
        let (port, portContinuation) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .bufferingNewest(1))
        self.port = port
        self.portContinuation = portContinuation
        let application = Application(
            router: routes.router(),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "MoodyServer"),
            onServerRunning: { channel in
                if let port = channel.localAddress?.port {
                    portContinuation.yield(port)
                }
            },
            logger: logger
        )
        serviceGroup = ServiceGroup(configuration: .init(
            services: [application],
            gracefulShutdownSignals: configuration.handlesSignals ? [.sigterm, .sigint] : [],
            logger: logger
        ))
    }

    /// Serves until ``shutdown()`` (or SIGTERM/SIGINT when the configuration handles signals).
    public func run() async throws {
        defer {
            feed.stop()
            portContinuation.finish()
        }
        try await feed.start()
        try await serviceGroup.run()
    }

    /// The port the server listens on, once it does; nil if it stopped before listening.
    public func listeningPort() async -> Int? {
        if let port = boundPort.withLock({ $0 }) { return port }
        for await port in self.port {
            boundPort.withLock { $0 = port }
            return port
        }
        return boundPort.withLock { $0 }
    }

    /// Ends the live streams, finishes the requests in progress and stops listening; ``run()`` then returns.
    public func shutdown() async {
        feed.stop()
        await serviceGroup.triggerGracefulShutdown()
    }
}
