import Foundation
import Logging

/// The SQL debug switch: Apple's `-com.apple.CoreData.SQLDebug N` launch argument, or `OPENCOREDATA_SQL_DEBUG=N`.
///
/// Levels, each adding to the one below:
/// - 0: nothing is logged (the default);
/// - 1: each statement's SQL when it starts, and its execution time (and row count) when it finishes; failures;
/// - 2: the values bound to each statement;
/// - 3: the `EXPLAIN QUERY PLAN` output of each SELECT.
///
/// Messages go through swift-log, with the label ``loggerLabel`` at level `.debug` (a connection raises its
/// logger's level to `.debug` when its SQL debug level is above 0, so the messages are not filtered away).
/// The process-wide level is read once; each connection can override it (``SQLiteConnection/sqlDebugLevel``).
///
/// ```swift
/// // swift run MyTool -com.apple.CoreData.SQLDebug 1
/// // OPENCOREDATA_SQL_DEBUG=3 swift test
/// SQLDebug.processLevel   // 1, 3, or 0 when neither is given
/// ```
enum SQLDebug {
    /// The label of the logger every connection logs SQL to.
    static let loggerLabel = "OpenCoreData.SQL"

    /// The launch argument Apple's Core Data reads.
    static let launchArgument = "-com.apple.CoreData.SQLDebug"

    /// The environment variable OpenCoreData also reads.
    static let environmentVariable = "OPENCOREDATA_SQL_DEBUG"

    /// The level for this process, from its launch arguments and environment, read once.
    static let processLevel: Int = level(arguments: CommandLine.arguments, environment: ProcessInfo.processInfo.environment)

    /// The level that `arguments` and `environment` ask for: the larger of the two, 0 when neither says.
    ///
    /// ```swift
    /// SQLDebug.level(arguments: ["tool", "-com.apple.CoreData.SQLDebug", "2"], environment: [:])   // 2
    /// SQLDebug.level(arguments: [], environment: ["OPENCOREDATA_SQL_DEBUG": "1"])                  // 1
    /// ```
    static func level(arguments: [String], environment: [String: String]) -> Int {
        var level = 0
        if let index = arguments.firstIndex(of: launchArgument), index + 1 < arguments.count,
           let value = Int(arguments[index + 1].trimmingCharacters(in: .whitespaces)) {
            level = max(level, value)
        }
        if let text = environment[environmentVariable], let value = Int(text.trimmingCharacters(in: .whitespaces)) {
            level = max(level, value)
        }
        return max(0, level)
    }

    /// A logger with the SQL label, its level raised to `.debug` when SQL debugging is on.
    ///
    /// ```swift
    /// var logger = SQLDebug.makeLogger(level: 1)   // logLevel == .debug
    /// ```
    static func makeLogger(level: Int) -> Logger {
        var logger = Logger(label: loggerLabel)
        if level > 0 { logger.logLevel = .debug }
        return logger
    }
}
