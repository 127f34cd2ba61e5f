/// The base class of custom stores that keep their whole object graph in memory and read and write it all at once
/// (`load()` when the store is added, `save()` after every context save), with Apple's API. The store keeps one
/// `NSAtomicStoreCacheNode` per object; a subclass creates them in `load()` (registering them with
/// `addCacheNodes(_:)`), and writes them out in `save()` (reading `cacheNodes()`). When a context saves, the store is
/// asked for a reference object for each new object (`newReferenceObject(for:)`), a node for it
/// (`newCacheNode(for:)`), to update the nodes of changed objects (`updateCacheNode(_:from:)`), and told which nodes
/// go away (`willRemoveCacheNodes(_:)`) — then `save()` runs. Fetches are evaluated in memory over the nodes.
///
/// OpenCoreData's `NSBinaryStoreType` is an atomic store.
///
/// For example:
/// ```swift
/// final class PlistStore: NSAtomicStore {
///     override var type: String { "Plist" }
///     override func load() throws {
///         metadata = [NSStoreTypeKey: "Plist", NSStoreUUIDKey: UUID().uuidString]
///         // read the file; for each record: addCacheNodes([node]) with objectID(for:withReferenceObject:)
///     }
///     override func save() throws { /* write cacheNodes() to the file */ }
///     override func newReferenceObject(for managedObject: NSManagedObject) -> Any { UUID().uuidString }
/// }
/// NSPersistentStoreCoordinator.registerStoreClass(PlistStore.self, forStoreType: "Plist")
/// ```
open class NSAtomicStore: NSPersistentStore, @unchecked Sendable {
    // @unchecked Sendable: the nodes and versions are read and written only under the coordinator's lock, as every
    // store's data is (the store contract).

    /// The nodes by object ID.
    var nodesByID: [NSManagedObjectID: NSAtomicStoreCacheNode] = [:]
    /// The order nodes were added in (the order of a fetch without sort descriptors).
    var nodeOrder: [NSManagedObjectID: Int] = [:]
    var nextNodeOrder = 0
    /// The version of each object's values (for optimistic locking), 1 when first saved or loaded.
    var versions: [NSManagedObjectID: Int64] = [:]
    /// The snapshots of the nodes, computed on demand and forgotten when a node changes.
    var snapshotCache: [NSManagedObjectID: ObjectSnapshot] = [:]
    /// The model the store was added with.
    var model: NSManagedObjectModel?

    public required init(persistentStoreCoordinator coordinator: NSPersistentStoreCoordinator?, configurationName: String?, at url: URL, options: [AnyHashable: Any]? = nil) {
        super.init(persistentStoreCoordinator: coordinator, configurationName: configurationName, at: url, options: options)
    }

    /// Reads the store's file: sets `metadata` and registers a node for every object with `addCacheNodes(_:)`.
    /// Called once, when the store is added. The default throws: a store must override it.
    ///
    /// ```swift
    /// override func load() throws {
    ///     metadata = [NSStoreTypeKey: type, NSStoreUUIDKey: storedUUID]
    ///     let node = NSAtomicStoreCacheNode(objectID: objectID(for: bookEntity, withReferenceObject: "b1"))
    ///     node.setValue("Dune", forKey: "title")
    ///     addCacheNodes([node])
    /// }
    /// ```
    open func load() throws {
        throw CoreDataError.make(NSPersistentStoreOperationError, "\(Swift.type(of: self)) does not implement load()")
    }

    /// Writes every node (`cacheNodes()`) and the metadata to the store's file. Called after the nodes of a context
    /// save were updated. The default throws: a store must override it.
    ///
    /// ```swift
    /// override func save() throws {
    ///     let records = cacheNodes().map { [referenceObject(for: $0.objectID), $0.propertyCache ?? [:]] }
    ///     try write(records, metadata)   // your file format
    /// }
    /// ```
    open func save() throws {
        throw CoreDataError.make(NSPersistentStoreOperationError, "\(Swift.type(of: self)) does not implement save()")
    }

    /// A new node for a newly saved object. The default makes a node for the object's ID and fills it with
    /// `updateCacheNode(_:from:)`.
    ///
    /// ```swift
    /// override func newCacheNode(for managedObject: NSManagedObject) -> NSAtomicStoreCacheNode {
    ///     let node = NSAtomicStoreCacheNode(objectID: managedObject.objectID)
    ///     updateCacheNode(node, from: managedObject)
    ///     return node
    /// }
    /// ```
    open func newCacheNode(for managedObject: NSManagedObject) -> NSAtomicStoreCacheNode {
        let node = NSAtomicStoreCacheNode(objectID: managedObject.objectID)
        updateCacheNode(node, from: managedObject)
        return node
    }

    /// A unique, unchanging reference for a new object (it becomes part of the object's ID: numbers and strings
    /// are the usual choice). The default returns a new UUID string.
    ///
    /// ```swift
    /// override func newReferenceObject(for managedObject: NSManagedObject) -> Any { nextNumber() }
    /// ```
    open func newReferenceObject(for managedObject: NSManagedObject) -> Any {
        UUID().uuidString
    }

    /// Copies an object's persistent values into its node. The default copies every non-transient property:
    /// attributes as `value(forKey:)` returns them, a to-one relationship as the destination's node, a to-many one as
    /// an `NSSet` (ordered: `NSOrderedSet`) of nodes.
    ///
    /// ```swift
    /// override func updateCacheNode(_ node: NSAtomicStoreCacheNode, from managedObject: NSManagedObject) {
    ///     node.setValue(managedObject.value(forKey: "title"), forKey: "title")
    /// }
    /// ```
    open func updateCacheNode(_ node: NSAtomicStoreCacheNode, from managedObject: NSManagedObject) {
        func destinationNode(_ object: NSManagedObject) -> NSAtomicStoreCacheNode {
            cacheNode(for: object.objectID) ?? NSAtomicStoreCacheNode(objectID: object.objectID)
        }
        for property in managedObject.entity.properties where !property.isTransient {
            switch property {
            case let attribute as NSAttributeDescription:
                node.setValue(managedObject.value(forKey: attribute.name), forKey: attribute.name)
            case let relationship as NSRelationshipDescription:
                let value = managedObject.value(forKey: relationship.name)
                if !relationship.isToMany {
                    node.setValue((value as? NSManagedObject).map(destinationNode), forKey: relationship.name)
                } else if let ordered = value as? NSOrderedSet {
                    node.setValue(NSOrderedSet(array: ordered.array.compactMap { ($0 as? NSManagedObject).map(destinationNode) }), forKey: relationship.name)
                } else if let set = value as? NSSet {
                    node.setValue(NSSet(array: set.allObjects.compactMap { ($0 as? NSManagedObject).map(destinationNode) }), forKey: relationship.name)
                } else {
                    node.setValue(relationship.isOrdered ? NSOrderedSet() : NSSet(), forKey: relationship.name)
                }
            default:
                continue
            }
        }
    }

    /// Told before nodes of deleted objects are removed (the default does nothing).
    ///
    /// ```swift
    /// override func willRemoveCacheNodes(_ cacheNodes: Set<NSAtomicStoreCacheNode>) { removedCount += cacheNodes.count }
    /// ```
    open func willRemoveCacheNodes(_ cacheNodes: Set<NSAtomicStoreCacheNode>) {}

    /// Every node of the store.
    ///
    /// ```swift
    /// for node in cacheNodes() { print(node.objectID, node.propertyCache ?? [:]) }
    /// ```
    open func cacheNodes() -> Set<NSAtomicStoreCacheNode> {
        Set(nodesByID.values)
    }

    /// Registers nodes (a node for an object that already has one replaces it).
    ///
    /// ```swift
    /// addCacheNodes(Set(loadedNodes))
    /// ```
    open func addCacheNodes(_ cacheNodes: Set<NSAtomicStoreCacheNode>) {
        for node in cacheNodes {
            if nodeOrder[node.objectID] == nil {
                nodeOrder[node.objectID] = nextNodeOrder
                nextNodeOrder += 1
            }
            nodesByID[node.objectID] = node
            if versions[node.objectID] == nil { versions[node.objectID] = 1 }
            snapshotCache[node.objectID] = nil
        }
    }

    /// The node of an object, if the store has one.
    ///
    /// ```swift
    /// let title = cacheNode(for: book.objectID)?.value(forKey: "title")
    /// ```
    open func cacheNode(for objectID: NSManagedObjectID) -> NSAtomicStoreCacheNode? {
        nodesByID[objectID]
    }

    /// The object ID of an object of this store, from the store's reference object.
    ///
    /// ```swift
    /// let id = objectID(for: bookEntity, withReferenceObject: 42)
    /// referenceObject(for: id) as? Int   // 42
    /// ```
    open func objectID(for entity: NSEntityDescription, withReferenceObject data: Any) -> NSManagedObjectID {
        NSManagedObjectID(entity: entity, key: .reference(.init(value: (data as? AnyHashable) ?? AnyHashable("\(data)"))), store: self)
    }

    /// The reference object an object ID of this store was made from.
    ///
    /// ```swift
    /// let reference = referenceObject(for: node.objectID) as? Int
    /// ```
    open func referenceObject(for objectID: NSManagedObjectID) -> Any {
        switch objectID.key {
        case .reference(let reference): return reference.value.base
        case .primaryKey(let key): return Int(key)
        case .temporary: return objectID.uriRepresentation().absoluteString
        }
    }

    /// Called after `load()` once the metadata is complete (the binary store writes a new file here).
    func didLoad() throws {}

    /// Forgets every node (before `load()` runs again).
    func removeAllCacheNodes() {
        nodesByID = [:]
        nodeOrder = [:]
        nextNodeOrder = 0
        versions = [:]
        snapshotCache = [:]
    }
}
