import OpenCoreData
import Testing

/// A custom atomic store written only with Apple's `NSAtomicStore` API: a property list of records keyed by the
/// default reference objects (UUID strings), read in `load()` and written in `save()`. It overrides only what Apple
/// requires and records which of Apple's hooks were called.
final class PlistAtomicStore: NSAtomicStore, @unchecked Sendable {
    // @unchecked Sendable: called only under the coordinator's lock, like every store.
    static let typeName = "OpenCoreDataTests.PlistAtomicStore"
    var calls: [String] = []

    override var type: String { Self.typeName }

    override func load() throws {
        guard let url, FileManager.default.fileExists(atPath: url.path) else {
            metadata = [NSStoreTypeKey: Self.typeName, NSStoreUUIDKey: UUID().uuidString]
            return
        }
        guard let root = try PropertyListSerialization.propertyList(from: Data(contentsOf: url), format: nil) as? [String: Any],
            let metadata = root["metadata"] as? [String: Any], let records = root["records"] as? [String: [String: Any]],
            let model = persistentStoreCoordinator?.managedObjectModel
        else { throw NSError(domain: NSCocoaErrorDomain, code: NSFileReadCorruptFileError) }
        self.metadata = metadata
        var nodes: [String: NSAtomicStoreCacheNode] = [:]
        for (reference, record) in records {
            let entity = model.entitiesByName[record["entity"] as! String]!
            nodes[reference] = NSAtomicStoreCacheNode(objectID: objectID(for: entity, withReferenceObject: reference))
        }
        for (reference, record) in records {
            let node = nodes[reference]!
            for (key, value) in record where key != "entity" {
                if let relationship = node.objectID.entity.relationshipsByName[key] {
                    let members = (value as? [String] ?? []).compactMap { nodes[$0] }
                    node.setValue(relationship.isToMany ? NSSet(array: members) : members.first, forKey: key)
                } else {
                    node.setValue(value, forKey: key)
                }
            }
        }
        addCacheNodes(Set(nodes.values))
    }

    override func save() throws {
        calls.append("save")
        var records: [String: [String: Any]] = [:]
        for node in cacheNodes() {
            var record: [String: Any] = ["entity": node.objectID.entity.name!]
            for (key, value) in node.propertyCache as? [String: Any] ?? [:] {
                switch value {
                case let destination as NSAtomicStoreCacheNode: record[key] = [referenceObject(for: destination.objectID) as! String]
                case let members as NSSet: record[key] = members.allObjects.map { referenceObject(for: ($0 as! NSAtomicStoreCacheNode).objectID) as! String }
                default: record[key] = value
                }
            }
            records[referenceObject(for: node.objectID) as! String] = record
        }
        let data = try PropertyListSerialization.data(fromPropertyList: ["metadata": metadata ?? [:], "records": records], format: .binary, options: 0)
        try data.write(to: url!, options: .atomic)
    }

    override func newCacheNode(for managedObject: NSManagedObject) -> NSAtomicStoreCacheNode {
        calls.append("newCacheNode(\(managedObject.entity.name!))")
        return super.newCacheNode(for: managedObject)
    }

    override func updateCacheNode(_ node: NSAtomicStoreCacheNode, from managedObject: NSManagedObject) {
        calls.append("updateCacheNode(\(managedObject.entity.name!))")
        super.updateCacheNode(node, from: managedObject)
    }

    override func willRemoveCacheNodes(_ cacheNodes: Set<NSAtomicStoreCacheNode>) {
        calls.append("willRemoveCacheNodes(\(cacheNodes.count))")
    }
}

@Suite("NSAtomicStore: a custom atomic store behind a coordinator")
struct AtomicStoreTests {
    static func stack(_ url: URL) throws -> (NSManagedObjectContext, PlistAtomicStore) {
        NSPersistentStoreCoordinator.registerStoreClass(PlistAtomicStore.self, type: .init(rawValue: PlistAtomicStore.typeName))
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: IncrementalStoreTests.model())
        let store = try coordinator.addPersistentStore(ofType: PlistAtomicStore.typeName, configurationName: nil, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return (context, try #require(store as? PlistAtomicStore))
    }

    @Test("objects are saved through Apple's atomic-store calls, reloaded by load(), and found by their URIs")
    func roundTrip() throws {
        let directory = try TemporaryStoreDirectory()
        let url = directory.url.appendingPathComponent("Library.plist")
        let (context, store) = try Self.stack(url)
        let uri = try context.performAndWait {
            let author = context.insertObject("Author", ["name": "Le Guin"])
            context.insertObject("Book", ["title": "Earthsea", "pages": 200, "author": author])
            context.insertObject("Book", ["title": "The Dispossessed", "pages": 380, "author": author])
            try context.save()
            #expect(store.referenceObject(for: author.objectID) is String, "the default reference object is a UUID string")
            #expect(store.cacheNode(for: author.objectID)?.value(forKey: "name") as? String == "Le Guin")
            #expect((store.cacheNode(for: author.objectID)?.value(forKey: "books") as? NSSet)?.count == 2)
            return author.objectID.uriRepresentation()
        }
        #expect(store.calls.filter { $0.hasPrefix("newCacheNode") }.sorted() == ["newCacheNode(Author)", "newCacheNode(Book)", "newCacheNode(Book)"])
        #expect(store.calls.last == "save")
        #expect(uri.lastPathComponent.hasPrefix("s"), "string references appear in URIs with Apple's `s` prefix")

        let (reader, reloaded) = try Self.stack(url)
        try reader.performAndWait {
            #expect(reloaded.cacheNodes().count == 3)
            let id = try #require(reader.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: uri))
            let author = try reader.existingObject(with: id)
            #expect(author.value(forKey: "name") as? String == "Le Guin")
            #expect(author.memberStrings("books", "title") == ["Earthsea", "The Dispossessed"])
            let long = try reader.objects("Book", "pages > 300")
            #expect(strings(long, "title") == ["The Dispossessed"])
            long[0].setValue(387, forKey: "pages")
            try reader.save()
            #expect(reloaded.calls.contains("updateCacheNode(Book)"))
            reader.delete(author)   // cascades to the books
            try reader.save()
            #expect(reloaded.calls.contains("willRemoveCacheNodes(3)"))
            #expect(reloaded.cacheNodes().isEmpty)
        }
    }

    @Test("two contexts changing the same object: the second save conflicts (optimistic locking)")
    func optimisticLocking() throws {
        let directory = try TemporaryStoreDirectory()
        let (first, _) = try Self.stack(directory.url.appendingPathComponent("Locking.plist"))
        let id = try first.performAndWait {
            let author = first.insertObject("Author", ["name": "A"])
            try first.save()
            return author.objectID
        }
        let second = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        second.persistentStoreCoordinator = first.persistentStoreCoordinator
        try second.performAndWait {
            let author = try second.existingObject(with: id)
            try first.performAndWait {
                first.object(with: id).setValue("changed first", forKey: "name")
                try first.save()
            }
            author.setValue("changed second", forKey: "name")
            _ = expectCocoaError(NSManagedObjectMergeError) { try second.save() }
        }
    }
}

@Suite("NSIncrementalStore: contexts tell the store which of its objects they hold")
struct IncrementalStoreRegistrationTests {
    @Test("managedObjectContextDidRegisterObjects(with:) and DidUnregister are called with the store's object IDs")
    func registrationCallbacks() throws {
        let (context, store) = try IncrementalStoreTests.stack()
        try context.performAndWait {
            let author = context.insertObject("Author", ["name": "Le Guin"])
            try context.save()
            #expect(store.registered.contains(author.objectID), "a saved object registered under its permanent ID")
            let fresh = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            fresh.persistentStoreCoordinator = context.persistentStoreCoordinator
            store.registered.removeAll()
            try fresh.performAndWait {
                let fetched = try fresh.objects("Author")
                #expect(store.registered == fetched.map(\.objectID), "fetched objects are registered in the fetching context")
                fresh.reset()
                #expect(store.unregistered == fetched.map(\.objectID), "reset unregisters them")
            }
        }
    }
}

@Suite("Class-level metadata of a custom incremental store that does not override it")
struct IncrementalStoreDefaultMetadataTests {
    @Test("metadataForPersistentStore asks a store of the class for its loadMetadata()")
    func defaultMetadataComesFromLoadMetadata() throws {
        NSPersistentStoreCoordinator.registerStoreClass(DictionaryStore.self, forStoreType: DictionaryStore.typeName)
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: DictionaryStore.typeName, at: URL(fileURLWithPath: "/dev/null"))
        #expect(metadata[NSStoreUUIDKey] as? String == "DICTIONARY-STORE-1")
        #expect(metadata[NSStoreTypeKey] as? String == DictionaryStore.typeName)
    }
}
