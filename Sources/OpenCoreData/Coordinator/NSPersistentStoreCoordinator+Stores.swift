/// Notifications and userInfo keys about a coordinator's stores.
extension NSNotification.Name {
    /// Posted (object: the coordinator) before stores are removed or replaced by a migration, with
    /// `NSRemovedPersistentStoresKey` (and `NSAddedPersistentStoresKey` for a migration's new store, once known).
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(forName: .NSPersistentStoreCoordinatorStoresWillChange, object: coordinator, queue: nil) { _ in … }
    /// ```
    public static let NSPersistentStoreCoordinatorStoresWillChange = NSNotification.Name("NSPersistentStoreCoordinatorStoresWillChangeNotification")
    /// Posted (object: the coordinator) after stores were added, removed or migrated, with `NSAddedPersistentStoresKey`,
    /// `NSRemovedPersistentStoresKey` and, for a migration, `NSUUIDChangedPersistentStoresKey`.
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(forName: .NSPersistentStoreCoordinatorStoresDidChange, object: coordinator, queue: nil) { note in
    ///     let added = note.userInfo?[NSAddedPersistentStoresKey] as? [NSPersistentStore] ?? []
    /// }
    /// ```
    public static let NSPersistentStoreCoordinatorStoresDidChange = NSNotification.Name("NSPersistentStoreCoordinatorStoresDidChangeNotification")
    /// Posted (object: the store) before a store is removed from its coordinator.
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(forName: .NSPersistentStoreCoordinatorWillRemoveStore, object: store, queue: nil) { _ in … }
    /// ```
    public static let NSPersistentStoreCoordinatorWillRemoveStore = NSNotification.Name("NSPersistentStoreCoordinatorWillRemoveStoreNotification")
}

/// userInfo key of the stores a change added (an array of `NSPersistentStore`).
public let NSAddedPersistentStoresKey = "added"
/// userInfo key of the stores a change removed (an array of `NSPersistentStore`).
public let NSRemovedPersistentStoresKey = "removed"
/// userInfo key of a migration's stores: an array of the old store and the store that replaced it.
public let NSUUIDChangedPersistentStoresKey = "UUIDChangedStores"

extension NSPersistentStoreCoordinator {
    // MARK: Notifications (internal)

    func postStoresWillChange(added: [NSPersistentStore], removed: [NSPersistentStore]) {
        for store in removed { NotificationCenter.default.post(name: .NSPersistentStoreCoordinatorWillRemoveStore, object: store) }
        NotificationCenter.default.post(name: .NSPersistentStoreCoordinatorStoresWillChange, object: self, userInfo: Self.changeInfo(added, removed))
    }

    func postStoresDidChange(added: [NSPersistentStore], removed: [NSPersistentStore], uuidChanged: [NSPersistentStore]? = nil) {
        var info = Self.changeInfo(added, removed)
        if let uuidChanged { info[NSUUIDChangedPersistentStoresKey] = uuidChanged }
        postStoresDidChangeNotification(userInfo: info)
    }

    private static func changeInfo(_ added: [NSPersistentStore], _ removed: [NSPersistentStore]) -> [AnyHashable: Any] {
        var info: [AnyHashable: Any] = [:]
        if !added.isEmpty { info[NSAddedPersistentStoresKey] = added }
        if !removed.isEmpty { info[NSRemovedPersistentStoresKey] = removed }
        return info
    }

    // MARK: Store locations

    /// The URL of a store of this coordinator.
    ///
    /// ```swift
    /// let url = coordinator.url(for: store)
    /// ```
    public func url(for store: NSPersistentStore) -> URL {
        store.url ?? URL(fileURLWithPath: "/dev/null")
    }

    /// Moves a store to another location: an atomic store (the binary store) writes its next save there; an SQLite
    /// store reopens on the existing store file at `url` (which must exist). Returns false when the store is not a
    /// store of this coordinator, another store already uses `url`, or the store cannot move (in-memory stores).
    ///
    /// ```swift
    /// if coordinator.setURL(backupURL, for: store) { try context.save() }
    /// ```
    @discardableResult
    public func setURL(_ url: URL, for store: NSPersistentStore) -> Bool {
        withLock {
            guard persistentStores.contains(where: { $0 === store }) else { return false }
            if persistentStores.contains(where: { $0 !== store && $0.url?.standardizedFileURL == url.standardizedFileURL }) { return false }
            guard let relocatable = store as? RelocatableStore else {
                store.url = url   // a custom store takes the new location as it is
                return true
            }
            return relocatable.relocate(to: url, coordinator: self)
        }
    }

    // MARK: Migrating a store

    /// Copies every object of `store` into a new store of `storeType` at `URL` (with the same configuration), then
    /// replaces `store` with the new one in this coordinator and returns it. The old store's file is left as it was.
    /// Objects of the old store that contexts still hold are no longer valid afterwards; fetch them again.
    ///
    /// For example:
    /// ```swift
    /// let binary = try coordinator.migratePersistentStore(sqliteStore, to: binaryURL, options: nil, type: .binary)
    /// ```
    @discardableResult
    public func migratePersistentStore(_ store: NSPersistentStore, to URL: URL, options: [AnyHashable: Any]? = nil, type storeType: NSPersistentStore.StoreType) throws -> NSPersistentStore {
        try migratePersistentStore(store, to: URL, options: options, withType: storeType.rawValue)
    }

    /// Copies a store to another place or type and uses the copy instead (the pre-iOS 15 spelling of
    /// `migratePersistentStore(_:to:options:type:)`).
    ///
    /// ```swift
    /// let copy = try coordinator.migratePersistentStore(store, to: url, options: nil, withType: NSSQLiteStoreType)
    /// ```
    @discardableResult
    public func migratePersistentStore(_ store: NSPersistentStore, to URL: URL, options: [AnyHashable: Any]? = nil, withType storeType: String) throws -> NSPersistentStore {
        guard persistentStores.contains(where: { $0 === store }) else {
            throw CoreDataError.make(NSPersistentStoreOperationError, "The store \(store) is not added to this coordinator")
        }
        guard let storeClass = Self.storeClass(forType: storeType) else {
            throw CoreDataError.make(NSPersistentStoreInvalidTypeError, "Unknown persistent store type '\(storeType)'")
        }
        let configuration = store.configurationName == "PF_DEFAULT_CONFIGURATION_NAME" ? nil : store.configurationName
        // Files the migration creates are removed again if it fails (files that were there are left alone).
        let companions = [URL, Foundation.URL(fileURLWithPath: URL.path + "-wal"), Foundation.URL(fileURLWithPath: URL.path + "-shm")]
        let created = companions.filter { URL.isFileURL && !FileManager.default.fileExists(atPath: $0.path) }
        let destination: NSPersistentStore
        do {
            destination = try addStoreWithoutNotifying(storeClass: storeClass, type: storeType, configuration: configuration, at: URL, options: options)
        } catch {
            for file in created { try? FileManager.default.removeItem(at: file) }
            throw error
        }
        destination.metadata = Self.metadata(carriedFrom: store, to: destination)
        do {
            try StoreCopier(coordinator: self, source: store, destination: destination).copy()
        } catch {
            try? removeStoreWithoutNotifying(destination)
            for file in created { try? FileManager.default.removeItem(at: file) }
            throw error
        }
        postStoresWillChange(added: [destination], removed: [store])
        // (The metadata is written with the copy's save; a store of no objects writes it when it is next saved.)
        try removeStoreWithoutNotifying(store)
        postStoresDidChange(added: [destination], removed: [store], uuidChanged: [store, destination])
        return destination
    }
}

extension NSPersistentStoreCoordinator {
    /// The keys a store manages itself (its type, UUID, model version, format details), which a migration does not carry.
    static let storeManagedMetadataKeys: Set<String> = [
        NSStoreTypeKey, NSStoreUUIDKey, NSStoreModelVersionHashesKey, NSStoreModelVersionIdentifiersKey, "NSStoreModelVersionHashesVersion",
        "NSStoreModelVersionHashesDigest", NSPersistenceFrameworkVersionKey, NSPersistentStoreModelVersionChecksumKey, "_NSAutoVacuumLevel",
    ]

    /// The destination's metadata with the source's own keys (those an app set) added.
    static func metadata(carriedFrom source: NSPersistentStore, to destination: NSPersistentStore) -> [String: Any] {
        var metadata = destination.metadata ?? [:]
        for (key, value) in source.metadata ?? [:] where !storeManagedMetadataKeys.contains(key) && metadata[key] == nil {
            metadata[key] = value
        }
        return metadata
    }
}

/// Copies every object of one store of a coordinator into another store of the same coordinator, through a
/// context: each object is fetched from the source (`affectedStores`), re-created, `assign`ed to the destination,
/// given the source's attribute values, then its relationships, and saved in one save.
struct StoreCopier {
    let coordinator: NSPersistentStoreCoordinator
    let source: NSPersistentStore
    let destination: NSPersistentStore

    func copy() throws {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        context.undoManager = nil
        let model = coordinator.managedObjectModel
        let entities = (model.entities(forConfigurationName: source.configurationName) ?? [])
            .filter { !$0.isAbstract && coordinator.configuration(of: destination, holds: $0) }
        try context.performAndWait {
            // Read everything first: new objects in the context would otherwise join the fetches.
            var originals: [NSManagedObject] = []
            for entity in entities {
                let request = NSFetchRequest<NSManagedObject>()
                request.entity = entity
                request.includesSubentities = false
                request.affectedStores = [source]
                request.returnsObjectsAsFaults = false
                originals += try context.fetch(request)
            }
            var copies: [NSManagedObjectID: NSManagedObject] = [:]
            for original in originals {
                let copy = NSEntityDescription.insertNewObject(forEntityName: original.entity.name ?? "", into: context)
                context.assign(copy, to: destination)
                for attribute in original.entity.attributesByName.values where !attribute.isTransient && !(attribute is NSDerivedAttributeDescription) {
                    copy.setValue(original.value(forKey: attribute.name), forKey: attribute.name)
                }
                copies[original.objectID] = copy
            }
            func copied(_ value: Any?) -> NSManagedObject? {
                (value as? NSManagedObject).flatMap { copies[$0.objectID] }
            }
            // To-ones first, then to-manys (which set the order of ordered relationships last).
            for original in originals {
                let copy = copies[original.objectID]!
                for relationship in original.entity.relationshipsByName.values where !relationship.isTransient && !relationship.isToMany {
                    copy.setValue(copied(original.value(forKey: relationship.name)), forKey: relationship.name)
                }
            }
            for original in originals {
                let copy = copies[original.objectID]!
                for relationship in original.entity.relationshipsByName.values where !relationship.isTransient && relationship.isToMany {
                    switch original.value(forKey: relationship.name) {
                    case let ordered as NSOrderedSet:
                        copy.setValue(NSOrderedSet(array: ordered.array.compactMap(copied)), forKey: relationship.name)
                    case let set as NSSet:
                        copy.setValue(NSSet(array: set.allObjects.compactMap(copied)), forKey: relationship.name)
                    default:
                        continue
                    }
                }
            }
            try context.save()
            context.reset()
        }
    }
}
