/// The option key behind `NSPersistentStoreDescription.shouldAddStoreAsynchronously` (Apple's private key name).
let NSAddStoreAsynchronouslyOption = "NSAddStoreAsynchronouslyOption"

/// Describes a persistent store to add: its type, location, model configuration and options. A container adds one
/// store per description in `loadPersistentStores(completionHandler:)`; a coordinator adds one with
/// `addPersistentStore(with:completionHandler:)`.
///
/// Every setting except `type`, `url` and `configuration` lives in `options` (the dictionary the store is added
/// with), under Core Data's option keys: `isReadOnly` is `NSReadOnlyPersistentStoreOption`, `timeout` is
/// `NSPersistentStoreTimeoutOption`, the pragmas are `NSSQLitePragmasOption`, and so on.
///
/// For example:
/// ```swift
/// let description = NSPersistentStoreDescription(url: storeURL)   // an SQLite store
/// description.setValue("DELETE" as NSString, forPragmaNamed: "journal_mode")
/// description.shouldAddStoreAsynchronously = false
/// container.persistentStoreDescriptions = [description]
/// ```
///
/// `init(url:)` is `required` (Apple's is not), so that `copy()` makes an instance of the same subclass, as Apple's
/// does; a subclass that declares its own designated initializer writes `required init(url: URL)` (DEVIATIONS.md).
open class NSPersistentStoreDescription: NSObject, NSCopying, @unchecked Sendable {
    // @unchecked Sendable: every stored property is read and written under `lock`.

    private let lock = NSLock()
    private var _type: String = NSSQLiteStoreType
    private var _configuration: String?
    private var _url: URL?
    private var _options: [String: NSObject]

    /// Creates a description of an SQLite store at `url`, which migrates automatically with an inferred mapping
    /// model (`shouldMigrateStoreAutomatically` and `shouldInferMappingModelAutomatically` are true).
    ///
    /// For example:
    /// ```swift
    /// let description = NSPersistentStoreDescription(url: URL(fileURLWithPath: "/var/lib/app/App.sqlite"))
    /// ```
    public required init(url: URL) {
        _url = url
        _options = [
            NSInferMappingModelAutomaticallyOption: NSNumber(value: true),
            NSMigratePersistentStoresAutomaticallyOption: NSNumber(value: true),
        ]
        super.init()
    }

    /// Creates a description whose URL is `/dev/null` (set `url`, or `type` to `NSInMemoryStoreType`, before use).
    ///
    /// For example:
    /// ```swift
    /// let description = NSPersistentStoreDescription()
    /// description.type = NSInMemoryStoreType
    /// ```
    public convenience override init() {
        self.init(url: URL(fileURLWithPath: "/dev/null", isDirectory: false))
    }

    // MARK: Store

    /// The store type: `NSSQLiteStoreType` (the default), `NSInMemoryStoreType`, or a registered custom type.
    ///
    /// For example:
    /// ```swift
    /// description.type = NSInMemoryStoreType
    /// ```
    open var type: String {
        get { lock.withLock { _type } }
        set { lock.withLock { _type = newValue } }
    }

    /// The name of the model configuration whose entities the store holds (nil: every entity).
    ///
    /// For example:
    /// ```swift
    /// description.configuration = "Catalog"
    /// ```
    open var configuration: String? {
        get { lock.withLock { _configuration } }
        set { lock.withLock { _configuration = newValue } }
    }

    /// Where the store lives.
    ///
    /// For example:
    /// ```swift
    /// description.url = FileManager.default.temporaryDirectory.appendingPathComponent("Scratch.sqlite")
    /// ```
    open var url: URL? {
        get { lock.withLock { _url } }
        set { lock.withLock { _url = newValue } }
    }

    // MARK: Options

    /// The options the store is added with (a copy; change them with `setOption(_:forKey:)` or the properties).
    ///
    /// For example:
    /// ```swift
    /// let readOnly = (description.options[NSReadOnlyPersistentStoreOption] as? NSNumber)?.boolValue ?? false
    /// ```
    open var options: [String: NSObject] { lock.withLock { _options } }

    /// Sets an option (any of Core Data's store option keys, or your store's own); nil removes it.
    ///
    /// For example:
    /// ```swift
    /// description.setOption(NSNumber(value: true), forKey: NSSQLiteAnalyzeOption)
    /// ```
    open func setOption(_ option: NSObject?, forKey key: String) {
        lock.withLock { _options[key] = option }
    }

    /// Whether the store is opened read-only (`NSReadOnlyPersistentStoreOption`). False by default.
    ///
    /// For example:
    /// ```swift
    /// description.isReadOnly = true
    /// ```
    open var isReadOnly: Bool {
        get { boolOption(NSReadOnlyPersistentStoreOption) }
        set { setOption(NSNumber(value: newValue), forKey: NSReadOnlyPersistentStoreOption) }
    }

    /// How long, in seconds, to wait for a store that another connection keeps busy
    /// (`NSPersistentStoreTimeoutOption`). 240 unless set, as Apple's.
    ///
    /// For example:
    /// ```swift
    /// description.timeout = 5
    /// ```
    open var timeout: TimeInterval {
        get { (options[NSPersistentStoreTimeoutOption] as? NSNumber)?.doubleValue ?? 240 }
        set { setOption(NSNumber(value: newValue), forKey: NSPersistentStoreTimeoutOption) }
    }

    /// The SQLite pragmas applied when the store is opened (`NSSQLitePragmasOption`); empty unless set. Only
    /// SQLite stores read them.
    ///
    /// For example:
    /// ```swift
    /// description.setValue("FULL" as NSString, forPragmaNamed: "synchronous")
    /// description.sqlitePragmas["synchronous"]   // "FULL"
    /// ```
    open var sqlitePragmas: [String: NSObject] {
        Self.pragmas(in: options)
    }

    /// Sets an SQLite pragma applied when the store is opened; nil removes it. Apple documents string values
    /// (`NSString`); numbers are accepted too.
    ///
    /// For example:
    /// ```swift
    /// description.setValue("WAL" as NSString, forPragmaNamed: "journal_mode")
    /// description.setValue(nil, forPragmaNamed: "journal_mode")
    /// ```
    open func setValue(_ value: NSObject?, forPragmaNamed name: String) {
        lock.withLock {
            var pragmas = Self.pragmas(in: _options)
            pragmas[name] = value
            _options[NSSQLitePragmasOption] = NSDictionary(dictionary: pragmas)
        }
    }

    /// The pragma dictionary of `options` (an `NSDictionary` under `NSSQLitePragmasOption`, as Apple stores it).
    private static func pragmas(in options: [String: NSObject]) -> [String: NSObject] {
        guard let dictionary = options[NSSQLitePragmasOption] as? NSDictionary else { return [:] }
        var result: [String: NSObject] = [:]
        for (key, value) in dictionary {
            if let name = key as? String, let value = value as? NSObject { result[name] = value }
        }
        return result
    }

    /// Whether `loadPersistentStores(completionHandler:)` adds the store on a background queue (calling the
    /// completion handler there) instead of on the calling thread. False by default.
    ///
    /// For example:
    /// ```swift
    /// description.shouldAddStoreAsynchronously = true
    /// ```
    open var shouldAddStoreAsynchronously: Bool {
        get { boolOption(NSAddStoreAsynchronouslyOption) }
        set { setOption(NSNumber(value: newValue), forKey: NSAddStoreAsynchronouslyOption) }
    }

    /// Whether a store written with an older model version is migrated when it is added
    /// (`NSMigratePersistentStoresAutomaticallyOption`). True by default.
    ///
    /// For example:
    /// ```swift
    /// description.shouldMigrateStoreAutomatically = false
    /// ```
    open var shouldMigrateStoreAutomatically: Bool {
        get { boolOption(NSMigratePersistentStoresAutomaticallyOption) }
        set { setOption(NSNumber(value: newValue), forKey: NSMigratePersistentStoresAutomaticallyOption) }
    }

    /// Whether an automatic migration infers its mapping model (`NSInferMappingModelAutomaticallyOption`). True by
    /// default.
    ///
    /// For example:
    /// ```swift
    /// description.shouldInferMappingModelAutomatically = false
    /// ```
    open var shouldInferMappingModelAutomatically: Bool {
        get { boolOption(NSInferMappingModelAutomaticallyOption) }
        set { setOption(NSNumber(value: newValue), forKey: NSInferMappingModelAutomaticallyOption) }
    }

    private func boolOption(_ key: String) -> Bool {
        switch options[key] {
        case let number as NSNumber: return number.boolValue
        case let string as NSString: return string.boolValue
        default: return false
        }
    }

    // MARK: NSObject

    /// A copy with the same type, URL, configuration and options, of the same class.
    ///
    /// For example:
    /// ```swift
    /// let scratch = description.copy() as! NSPersistentStoreDescription
    /// scratch.url = scratchURL
    /// ```
    open func copy(with zone: NSZone? = nil) -> Any {
        let (type, configuration, url, options) = lock.withLock { (_type, _configuration, _url, _options) }
        let copy = Swift.type(of: self).init(url: url ?? URL(fileURLWithPath: "/dev/null", isDirectory: false))
        copy.lock.withLock {
            copy._type = type
            copy._configuration = configuration
            copy._url = url
            copy._options = options
        }
        return copy
    }

    /// Descriptions are equal when their standardized URLs, types, configurations and options are.
    ///
    /// For example:
    /// ```swift
    /// NSPersistentStoreDescription(url: url) == NSPersistentStoreDescription(url: url)   // true
    /// ```
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSPersistentStoreDescription else { return false }
        if other === self { return true }
        return url?.standardizedFileURL == other.url?.standardizedFileURL && type == other.type
            && configuration == other.configuration
            // NSDictionary-to-NSDictionary: Linux Foundation's isEqual(to:) with a Swift dictionary is always false.
            && NSDictionary(dictionary: options).isEqual(NSDictionary(dictionary: other.options))
    }

    /// The hash of the standardized URL (equal descriptions have equal hashes).
    ///
    /// For example:
    /// ```swift
    /// let unique = Set([description, description.copy() as! NSPersistentStoreDescription])   // one element
    /// ```
    open override var hash: Int {
        url?.standardizedFileURL.hashValue ?? 0
    }

    /// `<NSPersistentStoreDescription: 0x…> (type: SQLite, url: file:///…)`, as Apple prints it.
    ///
    /// For example:
    /// ```swift
    /// print(NSPersistentStoreDescription(url: URL(fileURLWithPath: "/tmp/A.sqlite")))
    /// // <NSPersistentStoreDescription: 0x…> (type: SQLite, url: file:///tmp/A.sqlite)
    /// ```
    open override var description: String {
        let address = Unmanaged.passUnretained(self).toOpaque()
        return "<\(Swift.type(of: self)): \(address)> (type: \(type), url: \(url?.absoluteString ?? "(null)"))"
    }
}

extension NSPersistentStoreDescription {
    /// Creates a description of a store at `url`: Apple's Objective-C-derived spelling of `init(url:)`.
    ///
    /// ```swift
    /// let description = NSPersistentStoreDescription(URL: storeURL)
    /// ```
    public convenience init(URL url: URL) {
        self.init(url: url)
    }
}
