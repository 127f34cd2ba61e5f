// `swift run MoodyServer [--store PATH] [--port N]`: the Moody HTTP service on 127.0.0.1 (README.md).
import Foundation
import Logging
import MoodyServerCore

LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
let logger = Logger(label: "MoodyServer")

let configuration: ServerConfiguration
do {
    configuration = try ServerConfiguration.parse(arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
} catch {
    FileHandle.standardError.write(Data("MoodyServer: \(error.description)\n".utf8))
    exit(2)
}

do {
    let server = try MoodyServer(configuration: configuration, logger: logger)
    logger.info("MoodyServer: store \(configuration.store.fileURL.path), http://\(configuration.host):\(configuration.port)")
    try await server.run()
} catch let error as ConfigurationError {
    FileHandle.standardError.write(Data("MoodyServer: \(error.description)\n".utf8))
    exit(1)
} catch {
    FileHandle.standardError.write(Data("MoodyServer: \(error)\n".utf8))
    exit(1)
}
