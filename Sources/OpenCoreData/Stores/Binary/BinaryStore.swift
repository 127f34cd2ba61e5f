/// `NSBinaryStoreType`: an atomic store that keeps the whole object graph in one file, read completely when the
/// store is added and rewritten completely (atomically: temporary file, then rename) after every save. Fetches are
/// evaluated in memory. The file format is OpenCoreData's own, documented in `BinaryStoreFile` (Apple's is a private
/// keyed archive; see DEVIATIONS.md). A file that is not a binary store, or is damaged, is refused with
/// `NSFileReadCorruptFileError` (259).
///
/// For example:
/// ```swift
/// try coordinator.addPersistentStore(type: .binary, at: URL(fileURLWithPath: "/tmp/Library.binarystore"))
/// ```
final class BinaryStore: NSAtomicStore, @unchecked Sendable {
    // @unchecked Sendable: all state is read and written only under the coordinator's lock (the store contract).

    /// The next reference number to hand out (references are unique in the file, across entities).
    private var nextReference = 1

    override var type: String { NSBinaryStoreType }

    override func load() throws {
        guard let url, url.isFileURL else {
            throw CoreDataError.make(NSPersistentStoreOpenError, "A binary store needs a file URL (got \(self.url?.absoluteString ?? "nil"))")
        }
        let exists = FileManager.default.fileExists(atPath: url.path)
        let size = exists ? ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue ?? 0) : 0
        guard exists, size > 0 else {
            // A new store (a missing or empty file): it is written on the first save.
            if isReadOnly {
                throw CoreDataError.make(NSPersistentStoreOpenError, "The read-only binary store at \(url.path) does not exist", userInfo: [NSFilePathErrorKey: url.path])
            }
            metadata = [NSStoreTypeKey: NSBinaryStoreType, NSStoreUUIDKey: UUID().uuidString]
            nextReference = 1
            return
        }
        let file = try BinaryStoreFile(contentsOf: url)
        guard Self.metadata(file.metadata, namesType: NSBinaryStoreType, allowingMissing: false) else {
            throw Self.typeMismatch(file.metadata, expected: NSBinaryStoreType, path: url.path)
        }
        guard file.metadata[NSStoreUUIDKey] is String else {
            throw CoreDataError.make(NSFileReadCorruptFileError, "The binary store at \(url.path) has no valid UUID in its metadata", userInfo: [NSFilePathErrorKey: url.path])
        }
        metadata = file.metadata   // before any object ID is made: IDs carry the store's UUID
        try addNodes(from: file, path: url.path)
    }

    /// Makes the nodes of the file's records (two passes: relationships refer to the nodes of other records).
    private func addNodes(from file: BinaryStoreFile, path: String) throws {
        guard let model = persistentStoreCoordinator?.managedObjectModel ?? model else { return }
        func corrupt(_ reason: String) -> NSError {
            CoreDataError.make(NSFileReadCorruptFileError, "The binary store at \(path) is damaged: \(reason)", userInfo: [NSFilePathErrorKey: path])
        }
        var nodes: [Int: NSAtomicStoreCacheNode] = [:]
        // The rows as the coordinator reads them, made here from the file's values (no conversion back from the nodes).
        var snapshots: [Int: ObjectSnapshot] = [:]
        for record in file.objects {
            guard let entity = model.entitiesByName[record.entity] else { throw corrupt("it holds objects of entity '\(record.entity)', which the model lacks") }
            guard nodes[record.reference] == nil else { throw corrupt("reference \(record.reference) is used twice") }
            nodes[record.reference] = NSAtomicStoreCacheNode(objectID: objectID(for: entity, withReferenceObject: record.reference))
        }
        for record in file.objects {
            let node = nodes[record.reference]!
            let entity = node.objectID.entity
            let layout = entity.layout
            var snapshot = layout.emptySnapshot()
            snapshot.version = record.version
            for (name, value) in record.attributes {
                guard let attribute = entity.attributesByName[name] else { throw corrupt("\(record.entity) has no attribute '\(name)'") }
                guard let stored = BinaryStoreFile.storedValue(value, for: attribute) else {
                    throw corrupt("the value of \(record.entity).\(name) is not of the attribute's type")
                }
                let kvc = attribute.attributeType == .transformableAttributeType
                    ? TransformableValues.object(from: stored, attribute: attribute) : ValueConversion.kvcValue(stored, for: attribute)
                node.setValue(kvc, forKey: name)
                if case .attribute(let slot, _)? = layout.slots[name], !attribute.isTransient { snapshot.attributes[slot] = stored }
            }
            for (name, reference) in record.toOne {
                guard let relationship = entity.relationshipsByName[name], !relationship.isToMany else { throw corrupt("\(record.entity) has no to-one relationship '\(name)'") }
                guard let destination = nodes[reference] else { throw corrupt("\(record.entity).\(name) refers to the missing object \(reference)") }
                node.setValue(destination, forKey: name)
                if case .toOne(let slot, _)? = layout.slots[name], !relationship.isTransient { snapshot.toOne[slot] = destination.objectID }
            }
            for (name, references) in record.toMany {
                guard let relationship = entity.relationshipsByName[name], relationship.isToMany else { throw corrupt("\(record.entity) has no to-many relationship '\(name)'") }
                let members = try references.map { reference in
                    guard let destination = nodes[reference] else { throw corrupt("\(record.entity).\(name) refers to the missing object \(reference)") }
                    return destination
                }
                node.setValue(relationship.isOrdered ? NSOrderedSet(array: members) : NSSet(array: members), forKey: name)
            }
            snapshots[record.reference] = snapshot
        }
        // In file order, so fetches without sort descriptors return objects in the order they were saved.
        for record in file.objects {
            let objectID = nodes[record.reference]!.objectID
            addCacheNodes([nodes[record.reference]!])
            versions[objectID] = record.version
            snapshotCache[objectID] = snapshots[record.reference]
        }
        nextReference = max(file.nextReference, (file.objects.map(\.reference).max() ?? 0) + 1)
    }

    /// A new store is written at once, so that its file (and metadata) exist as soon as the store is added.
    override func didLoad() throws {
        guard let url, !isReadOnly else { return }
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue ?? 0
        if size == 0 { try save() }
    }

    override func newReferenceObject(for managedObject: NSManagedObject) -> Any {
        defer { nextReference += 1 }
        return nextReference
    }

    override func save() throws {
        guard let url else { throw CoreDataError.make(NSPersistentStoreSaveError, "The binary store has no URL") }
        if isReadOnly {
            throw CoreDataError.make(NSPersistentStoreSaveError, "The binary store at \(url.path) is read-only", userInfo: [NSAffectedStoresErrorKey: [self]])
        }
        try file().write(to: url)
    }

    /// The file contents for the current nodes, in the order they were added.
    private func file() throws -> BinaryStoreFile {
        func reference(_ value: Any?) -> Int? {
            guard let node = value as? NSAtomicStoreCacheNode else { return nil }
            return referenceObject(for: node.objectID) as? Int
        }
        let ordered = nodesByID.values.sorted { (nodeOrder[$0.objectID] ?? 0) < (nodeOrder[$1.objectID] ?? 0) }
        let records = try ordered.map { node -> BinaryStoreFile.Record in
            let entity = node.objectID.entity
            guard let ownReference = referenceObject(for: node.objectID) as? Int else {
                throw CoreDataError.make(NSPersistentStoreSaveError, "The object \(node.objectID) does not belong to this binary store")
            }
            var attributes: [String: Any] = [:]
            for attribute in entity.attributesByName.values where !attribute.isTransient {
                let value = node.value(forKey: attribute.name)
                let stored = attribute.attributeType == .transformableAttributeType
                    ? TransformableValues.storedValue(from: value, attribute: attribute)
                    : (ValueConversion.storedValue(fromKVC: value, for: attribute) ?? .null)
                if let plist = BinaryStoreFile.propertyListValue(stored) { attributes[attribute.name] = plist }
            }
            var toOne: [String: Int] = [:], toMany: [String: [Int]] = [:]
            for relationship in entity.relationshipsByName.values where !relationship.isTransient {
                let value = node.value(forKey: relationship.name)
                if !relationship.isToMany {
                    toOne[relationship.name] = reference(value)
                } else {
                    let members: [Any] = (value as? NSOrderedSet)?.array ?? (value as? NSSet)?.allObjects ?? []
                    var references = members.compactMap(reference)
                    if !relationship.isOrdered { references.sort() }
                    if !references.isEmpty { toMany[relationship.name] = references }
                }
            }
            return BinaryStoreFile.Record(entity: entity.name ?? "", reference: ownReference, version: versions[node.objectID] ?? 1,
                                          attributes: attributes, toOne: toOne, toMany: toMany)
        }
        return BinaryStoreFile(metadata: metadata ?? [:], nextReference: nextReference, objects: records)
    }

    // MARK: Metadata without adding the store

    override class func metadataForPersistentStore(with url: URL) throws -> [String: Any] {
        try BinaryStoreFile(contentsOf: url).metadata
    }

    override class func setMetadata(_ metadata: [String: Any]?, forPersistentStoreAt url: URL) throws {
        var file = try BinaryStoreFile(contentsOf: url)
        var merged = metadata ?? [:]
        for key in [NSStoreModelVersionHashesKey, NSStoreModelVersionIdentifiersKey, NSStoreTypeKey, NSStoreUUIDKey] where merged[key] == nil {
            merged[key] = file.metadata[key]
        }
        file.metadata = merged
        try file.write(to: url)
    }
}
