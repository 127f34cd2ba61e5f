@_spi(OpenSwiftData) import OpenCoreDataSupport

/// A compact, universal identifier for a managed object: its entity, its store and its key there.
///
/// Object IDs are `Sendable` and hashable: pass them between contexts and threads, and get the object back
/// with `context.object(with:)`. An object inserted but not yet saved has a *temporary* ID; saving (or
/// `obtainPermanentIDs(for:)`) gives it a permanent one.
///
/// For example:
/// ```swift
/// let id = mood.objectID
/// background.perform {
///     let same = background.object(with: id) as! Mood
/// }
/// print(id.uriRepresentation())   // x-coredata://3F2C…/Mood/p12
/// ```
public final class NSManagedObjectID: NSObject, NSCopying, @unchecked Sendable {
    // @unchecked Sendable: every stored property is immutable (`let`), the entity is Sendable and the
    // store reference is weak.

    /// The entity of the object.
    public let entity: NSEntityDescription
    /// How the object is identified within its store.
    let key: Key
    /// The store's identifier (its `NSStoreUUID`), empty for temporary IDs.
    let storeIdentifier: String
    private let storeIdentity: StoreIdentity?
    /// The hash, computed once (IDs are dictionary keys everywhere).
    let cachedHash: Int
    /// The root of the entity's inheritance hierarchy (IDs of one hierarchy can be equal), found once.
    let rootEntityIdentity: ObjectIdentifier

    /// The identity of an object within a store.
    enum Key: Hashable, Sendable {
        /// An unsaved object: a random UUID.
        case temporary(UUID)
        /// A saved object: its primary key in its entity hierarchy (`Z_PK`).
        case primaryKey(Int64)
        /// A saved object of a custom store: the store's reference object.
        case reference(ReferenceObject)
    }

    /// A custom store's reference object, kept with its equality and description. A class, so that `Key` is small
    /// and copying a primary-key or temporary key retains nothing.
    final class ReferenceObject: Hashable, @unchecked Sendable {
        // @unchecked Sendable: reference objects are value-like identifiers (strings, numbers) that are
        // never mutated after the ID is made.
        let value: AnyHashable

        init(value: AnyHashable) { self.value = value }

        func hash(into hasher: inout Hasher) { hasher.combine(value) }
        static func == (lhs: ReferenceObject, rhs: ReferenceObject) -> Bool { lhs === rhs || lhs.value == rhs.value }
    }

    init(entity: NSEntityDescription, key: Key, store: NSPersistentStore?) {
        self.entity = entity
        self.key = key
        rootEntityIdentity = ObjectIdentifier(entity.rootEntity)
        let identity = store?.identity
        self.storeIdentity = identity
        let (storeIdentifier, storeHash) = identity?.identifierAndHash ?? ("", Self.noStoreHash)
        self.storeIdentifier = storeIdentifier
        cachedHash = Self.hash(of: key) ^ storeHash
        super.init()
    }

    private static let noStoreHash = "".hashValue

    /// A key's hash without a `Hasher` for the common keys (dictionaries mix the result with their own seed).
    private static func hash(of key: Key) -> Int {
        switch key {
        case .primaryKey(let pk):
            return Int(truncatingIfNeeded: UInt64(bitPattern: pk) &* 0x9E37_79B9_7F4A_7C15)
        case .temporary(let uuid):
            let (high, low) = withUnsafeBytes(of: uuid.uuid) { ($0.load(as: UInt64.self), $0.load(fromByteOffset: 8, as: UInt64.self)) }
            return Int(truncatingIfNeeded: (high &* 0x9E37_79B9_7F4A_7C15) ^ low)
        case .reference:
            return key.hashValue
        }
    }

    /// A new temporary ID for an object of `entity`.
    static func temporary(for entity: NSEntityDescription) -> NSManagedObjectID {
        NSManagedObjectID(entity: entity, key: .temporary(TemporaryIDSource.next()), store: nil)
    }

    /// The identity of the store the ID was made for (equal for the IDs of one store); nil for temporary IDs.
    var storeIdentityKey: ObjectIdentifier? { storeIdentity.map(ObjectIdentifier.init) }

    /// The store that holds the object; `nil` for temporary IDs.
    public var persistentStore: NSPersistentStore? { storeIdentity?.store }

    /// Whether the ID is temporary (the object has not been saved yet).
    public var isTemporaryID: Bool {
        if case .temporary = key { return true }
        return false
    }

    /// The counter of a temporary ID (the last 8 bytes of its UUID, which ``TemporaryIDSource`` counts up); 0 for
    /// other IDs. Tables page temporary IDs by it (``PagedIDTable``).
    var temporaryCounter: UInt64 {
        guard case .temporary(let uuid) = key else { return 0 }
        return UInt64(bigEndian: withUnsafeBytes(of: uuid.uuid) { $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self) })
    }

    /// The object's primary key within its store, for permanent IDs of stores that use primary keys.
    var primaryKey: Int64? {
        if case .primaryKey(let pk) = key { return pk }
        return nil
    }

    /// A URL that identifies the object across launches, in Apple's format:
    /// `x-coredata://<store UUID>/<Entity>/p<primary key>`, or `x-coredata:///<Entity>/t<UUID>` when temporary.
    public func uriRepresentation() -> URL {
        let entityName = entity.name ?? ""
        switch key {
        case .temporary(let uuid):
            return URL(string: "x-coredata:///\(Self.escaped(entityName))/t\(uuid.uuidString)")!
        case .primaryKey(let pk):
            return URL(string: "x-coredata://\(storeIdentifier)/\(Self.escaped(entityName))/p\(pk)")!
        case .reference(let reference):
            let text = (reference.value.base as? String).map { "s" + Self.escaped($0) } ?? "p\(reference.value)"
            return URL(string: "x-coredata://\(storeIdentifier)/\(Self.escaped(entityName))/\(text)")!
        }
    }

    private static func escaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? text
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let object else { return false }
        // A reference is cast as a reference (a class cast); anything else (an `AnyHashable`) through `Any`.
        let other = ValueConversion.instance(object).map { $0 as? NSManagedObjectID } ?? (object as? NSManagedObjectID)
        guard let other else { return false }
        return isSame(as: other)
    }

    /// Equality without `isEqual`'s boxing of the other ID (for the framework's own hot paths).
    @inline(__always)
    func isSame(as other: NSManagedObjectID) -> Bool {
        if other === self { return true }
        return cachedHash == other.cachedHash && rootEntityIdentity == other.rootEntityIdentity && key == other.key
            && storeIdentifier == other.storeIdentifier && (entity === other.entity || !isTemporaryID)
    }

    public override var hash: Int { cachedHash }

    /// Object IDs are immutable: a copy is the ID itself.
    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override var description: String {
        "<\(uriRepresentation().absoluteString)>"
    }
}

/// An object ID as a dictionary key of the framework's own tables: hashed and compared without `NSObject`'s
/// dynamic `hash` and `isEqual(_:)` (which boxes the other ID in `Any` and casts it back).
struct ObjectIDKey: Hashable {
    let objectID: NSManagedObjectID

    init(_ objectID: NSManagedObjectID) { self.objectID = objectID }

    func hash(into hasher: inout Hasher) { hasher.combine(objectID.cachedHash) }
    static func == (lhs: ObjectIDKey, rhs: ObjectIDKey) -> Bool { lhs.objectID.isSame(as: rhs.objectID) }
}

/// Unique values for temporary IDs without a system call per object (`UUID()` reads the system's random source
/// each time): a random 64-bit prefix chosen once per process and a counter, in UUID form.
enum TemporaryIDSource {
    private static let prefix = UInt64.random(in: .min ... .max)
    private static let counter = Locked<UInt64>(0)

    static func next() -> UUID {
        let count = counter.withLock { value -> UInt64 in
            value &+= 1
            return value
        }
        let high = prefix.bigEndian, low = count.bigEndian
        return withUnsafeBytes(of: (high, low)) { bytes in
            UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                        bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        }
    }
}
