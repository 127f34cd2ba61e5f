import Foundation
import OpenCoreData

/// Where and how a container stores its models (SwiftData's `ModelConfiguration`).
///
/// By default the store is Core Data's SQLite file `default.store` in the directory `NSPersistentContainer` uses
/// (on Linux `$XDG_DATA_HOME`, else `~/.local/share`); `isStoredInMemoryOnly` keeps it in memory.
///
/// ```swift
/// let onDisk = ModelConfiguration(url: URL(fileURLWithPath: "/var/lib/trips/trips.store"))
/// let scratch = ModelConfiguration(isStoredInMemoryOnly: true)
/// let container = try ModelContainer(for: Trip.self, configurations: scratch)
/// ```
public struct ModelConfiguration: Identifiable, Hashable, @unchecked Sendable {
    // @unchecked Sendable: `schema` is an immutable Schema (itself Sendable); the rest are values.

    /// The configuration's name (`"default"` unless given).
    public let name: String
    /// The store file.
    public let url: URL
    /// Whether the store lives in memory only.
    public let isStoredInMemoryOnly: Bool
    /// Whether contexts may save (a read-only store refuses).
    public let allowsSave: Bool
    /// The models this configuration stores (nil: the container's).
    public var schema: Schema?
    /// The CloudKit database the store would sync with: Linux has no CloudKit, so `.automatic` and `.none` keep the
    /// store local, and the container refuses `.private(_:)` (DEVIATIONS.md SD11).
    public let cloudKitDatabase: CloudKitDatabase

    /// A configuration storing in the default location, or in memory.
    public init(_ name: String? = nil, schema: Schema? = nil, isStoredInMemoryOnly: Bool = false, allowsSave: Bool = true,
                cloudKitDatabase: CloudKitDatabase = .automatic) {
        let name = name ?? "default"
        self.name = name
        self.schema = schema
        self.cloudKitDatabase = cloudKitDatabase
        self.isStoredInMemoryOnly = isStoredInMemoryOnly
        self.allowsSave = allowsSave
        url = isStoredInMemoryOnly ? URL(fileURLWithPath: "/dev/null")
            : NSPersistentContainer.defaultDirectoryURL().appendingPathComponent("\(name).store")
    }

    /// A configuration storing at `url`.
    public init(_ name: String? = nil, schema: Schema? = nil, url: URL, allowsSave: Bool = true, cloudKitDatabase: CloudKitDatabase = .automatic) {
        self.name = name ?? "default"
        self.schema = schema
        self.cloudKitDatabase = cloudKitDatabase
        self.url = url
        isStoredInMemoryOnly = url.path == "/dev/null"
        self.allowsSave = allowsSave
    }

    /// The configuration's identity: its name.
    public var id: String { name }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.name == rhs.name && lhs.url == rhs.url && lhs.isStoredInMemoryOnly == rhs.isStoredInMemoryOnly && lhs.allowsSave == rhs.allowsSave
            && lhs.schema == rhs.schema && lhs.cloudKitDatabase == rhs.cloudKitDatabase
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(url)
    }

    /// Which CloudKit database a store syncs with (SwiftData's `ModelConfiguration.CloudKitDatabase`).
    ///
    /// ```swift
    /// ModelConfiguration(schema: schema, url: url, cloudKitDatabase: .none)
    /// ```
    public struct CloudKitDatabase: Hashable, Sendable {
        enum Kind: Hashable, Sendable { case automatic, none, privateDatabase(String) }
        let kind: Kind

        /// The app's CloudKit container if it has one: on Linux, none (the store stays local).
        public static let automatic = CloudKitDatabase(kind: .automatic)
        /// No syncing.
        public static let none = CloudKitDatabase(kind: .none)
        /// The private database of the CloudKit container `identifier` (refused on Linux: there is no CloudKit).
        public static func `private`(_ identifier: String) -> CloudKitDatabase { CloudKitDatabase(kind: .privateDatabase(identifier)) }
    }
}
