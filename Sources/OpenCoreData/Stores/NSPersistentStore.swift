/// The SQLite store type (`"SQLite"`), Core Data's default.
public let NSSQLiteStoreType = "SQLite"
/// The in-memory store type (`"InMemory"`): nothing is written to disk.
public let NSInMemoryStoreType = "InMemory"
/// The binary store type (`"Binary"`).
public let NSBinaryStoreType = "Binary"

/// Option: open the store read-only.
public let NSReadOnlyPersistentStoreOption = "NSReadOnlyPersistentStoreOption"
/// Option: how long (seconds) to wait for a busy store.
public let NSPersistentStoreTimeoutOption = "NSPersistentStoreTimeoutOption"
/// Option of `destroyPersistentStore(at:ofType:options:)`: destroy the store even when another connection holds
/// its lock (the SQLite store then truncates its files directly instead of waiting for the lock).
///
/// ```swift
/// try coordinator.destroyPersistentStore(at: url, type: .sqlite, options: [NSPersistentStoreForceDestroyOption: true])
/// ```
public let NSPersistentStoreForceDestroyOption = "NSPersistentStoreForceDestroyOption"
/// Option: SQLite pragmas to apply, a dictionary of pragma name → value.
public let NSSQLitePragmasOption = "NSSQLitePragmasOption"
/// Option: vacuum the SQLite store when it is opened.
public let NSSQLiteManualVacuumOption = "NSSQLiteManualVacuumOption"
/// Option: run ANALYZE on the SQLite store when it is opened.
public let NSSQLiteAnalyzeOption = "NSSQLiteAnalyzeOption"
/// Option: file protection class (accepted for compatibility; Linux has no data protection classes).
public let NSPersistentStoreFileProtectionKey = "NSPersistentStoreFileProtectionKey"
/// Option: migrate the store automatically when its model version changed.
public let NSMigratePersistentStoresAutomaticallyOption = "NSMigratePersistentStoresAutomaticallyOption"
/// Option: infer the mapping model of an automatic migration.
public let NSInferMappingModelAutomaticallyOption = "NSInferMappingModelAutomaticallyOption"
/// Store-metadata key of the Core Data framework version that wrote the store.
public let NSPersistenceFrameworkVersionKey = "NSPersistenceFrameworkVersion"
/// Store-metadata key of the model's version checksum.
public let NSPersistentStoreModelVersionChecksumKey = "NSStoreModelVersionChecksumKey"

/// A persistent store: where a coordinator keeps objects. Subclass it (or `NSIncrementalStore`) to write a
/// store of your own; OpenCoreData ships the SQLite and in-memory stores.
///
/// For example:
/// ```swift
/// let store = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil,
///                                                at: nil, options: nil)
/// print(store.type, store.identifier!)
/// ```
open class NSPersistentStore: NSObject, @unchecked Sendable {
    // @unchecked Sendable: mutable state (metadata, url) is guarded by `stateLock`; subclasses' data is
    // accessed under the coordinator's lock.

    let stateLock = NSRecursiveLock()
    private var _url: URL?
    private let _configurationName: String
    private var _identifier: String?
    /// What the store's object IDs refer to: the store (weakly) and its identifier, shared by all of them.
    let identity = StoreIdentity()
    private var _metadata: [String: Any]?
    private let _options: [AnyHashable: Any]?
    private var _isReadOnly: Bool
    public private(set) weak var persistentStoreCoordinator: NSPersistentStoreCoordinator?

    /// Creates a store. Stores are normally created by `NSPersistentStoreCoordinator.addPersistentStore`.
    ///
    /// This initializer is `required` (Apple's is not): the coordinator creates registered store classes
    /// through their metatype, which Swift allows only for required initializers (see DEVIATIONS.md).
    public required init(persistentStoreCoordinator root: NSPersistentStoreCoordinator?, configurationName name: String?, at url: URL, options: [AnyHashable: Any]?) {
        _url = url
        _configurationName = name ?? "PF_DEFAULT_CONFIGURATION_NAME"
        _options = options
        _isReadOnly = (options?[NSReadOnlyPersistentStoreOption] as? Bool) ?? ((options?[NSReadOnlyPersistentStoreOption] as? NSNumber)?.boolValue ?? false)
        persistentStoreCoordinator = root
        super.init()
        identity.attach(self)
    }

    /// Apple's Objective-C-derived spelling of `init(persistentStoreCoordinator:configurationName:at:options:)`.
    public convenience init(persistentStoreCoordinator root: NSPersistentStoreCoordinator?, configurationName name: String?, URL url: URL, options: [AnyHashable: Any]?) {
        self.init(persistentStoreCoordinator: root, configurationName: name, at: url, options: options)
    }

    /// The store's location.
    open var url: URL? {
        get { stateLock.withLock { _url } }
        set { stateLock.withLock { _url = newValue } }
    }

    /// The model configuration whose entities the store holds.
    open var configurationName: String { _configurationName }

    /// The store's unique identifier (its `NSStoreUUID`).
    open var identifier: String! {
        get { stateLock.withLock { _identifier ?? (_metadata?[NSStoreUUIDKey] as? String) } }
        set {
            stateLock.withLock { _identifier = newValue }
            identity.refresh(from: self)
        }
    }

    /// The store's metadata (`NSStoreType`, `NSStoreUUID`, version hashes, and your own keys). Metadata you set is
    /// written to the store's file by the next save of any context of the store's coordinator — also a save with no
    /// changes, as Apple's Core Data does.
    ///
    /// ```swift
    /// store.metadata["lastSync"] = Date()   // or coordinator.setMetadata(_:for:)
    /// try context.save()                     // writes it, even with nothing else to save
    /// ```
    open var metadata: [String: Any]! {
        get { stateLock.withLock { _metadata } }
        set {
            stateLock.withLock {
                _metadata = newValue
                _metadataNeedsWriting = true
            }
            identity.refresh(from: self)
            persistentStoreCoordinator?.noteMetadataNeedsWriting()
        }
    }

    /// Whether `metadata` was set since the store last wrote it (the next save of a context writes it); stores clear
    /// it once written, the coordinator once the store is loaded.
    var metadataNeedsWriting: Bool {
        get { stateLock.withLock { _metadataNeedsWriting } }
        set { stateLock.withLock { _metadataNeedsWriting = newValue } }
    }
    private var _metadataNeedsWriting = false

    /// The options the store was added with.
    open var options: [AnyHashable: Any]? { _options }

    /// Whether the store refuses saves.
    open var isReadOnly: Bool {
        get { stateLock.withLock { _isReadOnly } }
        set { stateLock.withLock { _isReadOnly = newValue } }
    }

    /// The store's type string (`NSSQLiteStoreType`, `NSInMemoryStoreType`, …). Subclasses override it.
    open var type: String { "" }

    /// Loads the store's metadata; subclasses override it (the default does nothing).
    open func loadMetadata() throws {}

    /// The migration manager class for stores of this class: `NSMigrationManager`, as at Apple. (OpenCoreData's own
    /// stores migrate with `NSMigrationManager`; the SQLite store is not subclassable, so no override changes it.)
    ///
    /// ```swift
    /// let managerClass = NSPersistentStore.migrationManagerClass() as? NSMigrationManager.Type
    /// ```
    open class func migrationManagerClass() -> AnyClass {
        NSMigrationManager.self
    }

    /// Called after the store was added to `coordinator`.
    open func didAdd(to coordinator: NSPersistentStoreCoordinator) {}

    /// Called before the store is removed from `coordinator`.
    open func willRemove(from coordinator: NSPersistentStoreCoordinator?) {}

    /// The metadata of the store at `url`; subclasses that have files override it.
    open class func metadataForPersistentStore(with url: URL) throws -> [String: Any] {
        throw CoreDataError.make(NSPersistentStoreInvalidTypeError, "\(self) cannot read store metadata from \(url.path)")
    }

    /// Writes metadata into the store at `url`; subclasses that have files override it.
    open class func setMetadata(_ metadata: [String: Any]?, forPersistentStoreAt url: URL) throws {
        throw CoreDataError.make(NSPersistentStoreInvalidTypeError, "\(self) cannot write store metadata to \(url.path)")
    }

    // MARK: Destroying and replacing store files (NSPersistentStoreCoordinator+StoreFiles.swift)

    /// Destroys the store at `url` for `destroyPersistentStore(at:ofType:options:)`; `removeOpenStores` removes the
    /// coordinator's own stores there (call it before touching the files). This default — for the binary store and
    /// custom stores — deletes the file with `FileManager`, as Apple's does for every store but SQLite; a missing file
    /// throws `NSFileNoSuchFileError` (4). The SQLite store empties its files in place instead; the in-memory store
    /// has no files.
    class func destroyStoreFiles(at url: URL, options: [AnyHashable: Any]?, removingOpenStores removeOpenStores: () throws -> Void) throws {
        try removeOpenStores()
        try FileManager.default.removeItem(at: url)
    }

    /// Replaces the store at `destination` with a copy of the store at `source`, for
    /// `replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:ofType:)`, after the
    /// coordinator removed its own store at `destination`. This default copies the file with `FileManager` (through a
    /// temporary file beside the destination, renamed over it); a missing source throws `NSFileReadNoSuchFileError`.
    class func replaceStoreFiles(at destination: URL, destinationOptions: [AnyHashable: Any]?, withStoreAt source: URL,
                                 sourceOptions: [AnyHashable: Any]?) throws {
        guard FileManager.default.fileExists(atPath: source.path) else {
            throw CoreDataError.make(NSFileReadNoSuchFileError, "No store at \(source.path)", userInfo: [NSFilePathErrorKey: source.path])
        }
        do {
            try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileContents.read(source).write(to: destination, options: .atomic)
        } catch {
            throw CoreDataError.make(NSPersistentStoreOperationError, "Can't replace the store at \(destination.path): \((error as NSError).localizedDescription)",
                                     userInfo: [NSUnderlyingErrorKey: error, NSFilePathErrorKey: destination.path])
        }
    }

    /// Attaches the store to a coordinator.
    func attach(to coordinator: NSPersistentStoreCoordinator) {
        stateLock.withLock { persistentStoreCoordinator = coordinator }
    }

    /// Detaches the store from its coordinator (after it was removed).
    func detach() {
        stateLock.withLock { persistentStoreCoordinator = nil }
    }

    open override var description: String {
        "<\(Swift.type(of: self)): \(type) \(url?.path ?? "-") \(identifier ?? "-")>"
    }
}

extension NSPersistentStore {
    /// A store type in the iOS 15+ spelling (`.sqlite`, `.inMemory`, `.binary`).
    ///
    /// For example:
    /// ```swift
    /// try coordinator.addPersistentStore(type: .inMemory, at: URL(fileURLWithPath: "/dev/null"))
    /// ```
    public struct StoreType: RawRepresentable, Hashable, Sendable {
        /// A store type is its type string (`NSSQLiteStoreType`, …).
        public typealias RawValue = String
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let sqlite = StoreType(rawValue: NSSQLiteStoreType)
        public static let inMemory = StoreType(rawValue: NSInMemoryStoreType)
        public static let binary = StoreType(rawValue: NSBinaryStoreType)
    }
}

/// The part of a store its object IDs keep: a weak reference and the identifier, one per store (so that an ID
/// costs neither a weak reference of its own nor a metadata lookup).
final class StoreIdentity: @unchecked Sendable {
    // @unchecked Sendable: every field is guarded by `lock`.
    private weak var _store: NSPersistentStore?
    private let lock = NSLock()
    private var _identifier = ""
    private var _identifierHash = "".hashValue

    /// The store (nil once it is gone).
    var store: NSPersistentStore? { lock.withLock { _store } }

    func attach(_ store: NSPersistentStore) { lock.withLock { _store = store } }

    /// The store's current identifier.
    var identifier: String { lock.withLock { _identifier } }

    /// The identifier and its hash (computed once per identifier, not once per object ID).
    var identifierAndHash: (String, Int) { lock.withLock { (_identifier, _identifierHash) } }

    func refresh(from store: NSPersistentStore) {
        let value = store.identifier ?? ""
        let hash = value.hashValue
        lock.withLock {
            _identifier = value
            _identifierHash = hash
        }
    }
}

extension NSPersistentStore {
    /// Apple's reason for ``typeMismatch(_:expected:path:found:underlying:)``, word for word.
    static let typeMismatchReason = "The store type in the metadata does not match the specified store type."

    /// Whether `metadata` names `storeType` as the store's type (`NSStoreType`); a missing type passes when
    /// `allowingMissing` is true.
    static func metadata(_ metadata: [String: Any]?, namesType storeType: String, allowingMissing: Bool) -> Bool {
        guard let named = metadata?[NSStoreTypeKey] else { return allowingMissing }
        return (named as? String) == storeType
    }

    /// The error Apple's coordinator returns for a store whose metadata, or file, is of another type than the one it
    /// is added as: `NSPersistentStoreTypeMismatchError` (134010) with Apple's reason and the metadata under
    /// `"metadata"` (observed: rdar 14503709), the file's path, and what refused the file under `NSUnderlyingErrorKey`.
    ///
    /// ```swift
    /// throw NSPersistentStore.typeMismatch(metadata, expected: NSSQLiteStoreType, path: url.path)
    /// ```
    static func typeMismatch(_ metadata: [String: Any]?, expected storeType: String, path: String?, found: String? = nil,
                             underlying: Error? = nil) -> NSError {
        let named = found ?? (metadata?[NSStoreTypeKey]).map { "\($0)" } ?? "none"
        var userInfo: [String: Any] = ["reason": typeMismatchReason]
        if let metadata { userInfo["metadata"] = metadata }
        if let path { userInfo[NSFilePathErrorKey] = path }
        if let underlying { userInfo[NSUnderlyingErrorKey] = underlying }
        return CoreDataError.make(NSPersistentStoreTypeMismatchError,
                                  "\(typeMismatchReason) The store\(path.map { " at \($0)" } ?? "") is of type '\(named)', not '\(storeType)'",
                                  userInfo: userInfo)
    }
}
