import Foundation

@testable import OpenCoreData

/// The stress test's knobs, read from the environment (inherited by the child process).
enum StressConfiguration {
    /// Edits per context: `OPENCOREDATA_STRESS_EDITS` (the long mode is 5000), 200 by default (CI's short mode).
    static var editsPerContext: Int {
        ProcessInfo.processInfo.environment["OPENCOREDATA_STRESS_EDITS"].flatMap(Int.init).map { max(1, $0) } ?? 200
    }

    static let seededItems = 24
    static let seededBuckets = 4
    static let seededTags = 4
    /// Writers 0…4 are the parent's contexts (four background contexts and the view context), 5 is the child.
    static let childWriter = 5

    /// The environment variable that hands the store path to the child process. One name for every run (the suite
    /// is serialized): after the first run `setenv` only replaces the value, it never reallocates `environ` while
    /// other threads may read it.
    static let storePathVariable = "OPENCOREDATA_STRESS_STORE"
}

/// The five built-in merge policies, as test arguments and for the child process.
enum StressPolicy: String, CaseIterable, Codable, Sendable {
    case error, storeTrump, objectTrump, overwrite, rollback

    var policy: AnyObject {
        switch self {
        case .error: NSErrorMergePolicy
        case .storeTrump: NSMergeByPropertyStoreTrumpMergePolicy
        case .objectTrump: NSMergeByPropertyObjectTrumpMergePolicy
        case .overwrite: NSOverwriteMergePolicy
        case .rollback: NSRollbackMergePolicy
        }
    }
}
