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
    public let schema: Schema?

    /// A configuration storing in the default location, or in memory.
    public init(_ name: String? = nil, schema: Schema? = nil, isStoredInMemoryOnly: Bool = false, allowsSave: Bool = true) {
        let name = name ?? "default"
        self.name = name
        self.schema = schema
        self.isStoredInMemoryOnly = isStoredInMemoryOnly
        self.allowsSave = allowsSave
        url = isStoredInMemoryOnly ? URL(fileURLWithPath: "/dev/null")
            : NSPersistentContainer.defaultDirectoryURL().appendingPathComponent("\(name).store")
    }

    /// A configuration storing at `url`.
    public init(_ name: String? = nil, schema: Schema? = nil, url: URL, allowsSave: Bool = true) {
        self.name = name ?? "default"
        self.schema = schema
        self.url = url
        isStoredInMemoryOnly = url.path == "/dev/null"
        self.allowsSave = allowsSave
    }

    /// The configuration's identity: its name.
    public var id: String { name }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.name == rhs.name && lhs.url == rhs.url && lhs.isStoredInMemoryOnly == rhs.isStoredInMemoryOnly && lhs.allowsSave == rhs.allowsSave
            && lhs.schema == rhs.schema
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(url)
    }
}
