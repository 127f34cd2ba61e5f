import OpenCoreData

/// A custom store written only with Apple's `NSIncrementalStore` API, the way an app would write one: a directory
/// holding one JSON file per entity (`<Entity>.json`, the objects of that concrete entity by reference number) and
/// `metadata.json` (the store metadata and the next reference number). It evaluates fetches in memory on the
/// requesting context's objects, keeps a version per object for Core Data's optimistic locking, enforces the
/// model's uniqueness constraints itself (reporting them with Apple's `NSManagedObjectConstraintMergeError`), and
/// rewrites the files it changed on every save (atomically).
///
/// Values are kept as JSON strings chosen per attribute type, so that every bit survives: integers and booleans in
/// decimal, Double and Float in Swift's shortest exact form, Decimal as its decimal string, dates as seconds since
/// 2001, Binary Data and transformable values (the transformer's data) in base 64, UUIDs and URIs as text.
final class JSONFileStore: NSIncrementalStore, @unchecked Sendable {
    // @unchecked Sendable: every method is called with the coordinator's lock held, as for every store.
    static let typeName = "OpenCoreDataTests.JSONFileStore"

    static func register() {
        NSPersistentStoreCoordinator.registerStoreClass(JSONFileStore.self, forStoreType: typeName)
    }

    /// A stored object: its version and its values in JSON form.
    private struct Row {
        var version: UInt64
        var attributes: [String: String]
        var toOne: [String: Reference]
        var toMany: [String: [Reference]]
    }

    /// An object as a relationship stores it: its concrete entity and reference number.
    private struct Reference: Hashable {
        var entity: String
        var number: Int
    }

    /// The rows by entity name and reference number.
    private var tables: [String: [Int: Row]] = [:]
    private var nextReference = 1

    override var type: String { Self.typeName }

    private var directory: URL { url ?? URL(fileURLWithPath: "/dev/null") }

    // MARK: Metadata

    override func loadMetadata() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let metadataFile = directory.appendingPathComponent("metadata.json")
        guard FileManager.default.fileExists(atPath: metadataFile.path) else {
            metadata = [NSStoreTypeKey: Self.typeName, NSStoreUUIDKey: UUID().uuidString]
            try writeMetadata()
            return
        }
        let root = try Self.readObject(metadataFile)
        guard let stored = root["metadata"] as? [String: Any], stored[NSStoreUUIDKey] is String else {
            throw NSError(domain: NSCocoaErrorDomain, code: NSFileReadCorruptFileError, userInfo: [NSFilePathErrorKey: metadataFile.path])
        }
        metadata = stored
        nextReference = (root["nextReference"] as? NSNumber)?.intValue ?? 1
        for entity in persistentStoreCoordinator?.managedObjectModel.entities ?? [] {
            let file = directory.appendingPathComponent("\(entity.name!).json")
            guard FileManager.default.fileExists(atPath: file.path) else { continue }
            var rows: [Int: Row] = [:]
            for (key, value) in try Self.readObject(file) {
                guard let number = Int(key), let row = value as? [String: Any] else { continue }
                rows[number] = Row(
                    version: (row["version"] as? NSNumber)?.uint64Value ?? 1,
                    attributes: row["attributes"] as? [String: String] ?? [:],
                    toOne: (row["toOne"] as? [String: Any] ?? [:]).compactMapValues(Self.reference),
                    toMany: (row["toMany"] as? [String: [Any]] ?? [:]).mapValues { $0.compactMap(Self.reference) })
            }
            tables[entity.name!] = rows
        }
    }

    override class func metadataForPersistentStore(with url: URL) throws -> [String: Any] {
        guard let metadata = try readObject(url.appendingPathComponent("metadata.json"))["metadata"] as? [String: Any] else {
            throw NSError(domain: NSCocoaErrorDomain, code: NSFileReadCorruptFileError, userInfo: [NSFilePathErrorKey: url.path])
        }
        return metadata
    }

    override class func setMetadata(_ metadata: [String: Any]?, forPersistentStoreAt url: URL) throws {
        let file = url.appendingPathComponent("metadata.json")
        var root = try readObject(file)
        var merged = metadata ?? [:]
        let current = root["metadata"] as? [String: Any] ?? [:]
        for key in [NSStoreTypeKey, NSStoreUUIDKey] where merged[key] == nil { merged[key] = current[key] }
        root["metadata"] = merged
        try write(root, to: file)
    }

    private func writeMetadata() throws {
        try Self.write(["metadata": metadata ?? [:], "nextReference": nextReference], to: directory.appendingPathComponent("metadata.json"))
    }

    // MARK: Object IDs

    override func obtainPermanentIDs(for array: [NSManagedObject]) throws -> [NSManagedObjectID] {
        array.map { object in
            defer { nextReference += 1 }
            return newObjectID(for: object.entity, referenceObject: nextReference)
        }
    }

    private func number(_ objectID: NSManagedObjectID) -> Int { referenceObject(for: objectID) as! Int }

    private func objectID(_ reference: Reference) -> NSManagedObjectID? {
        persistentStoreCoordinator?.managedObjectModel.entitiesByName[reference.entity].map { newObjectID(for: $0, referenceObject: reference.number) }
    }

    // MARK: Faulting

    override func newValuesForObject(with objectID: NSManagedObjectID, with context: NSManagedObjectContext) throws -> NSIncrementalStoreNode {
        guard let row = tables[objectID.entity.name!]?[number(objectID)] else {
            throw NSError(domain: NSCocoaErrorDomain, code: NSManagedObjectReferentialIntegrityError, userInfo: [NSAffectedObjectsErrorKey: [objectID]])
        }
        var values: [String: Any] = [:]
        for (name, text) in row.attributes {
            if let attribute = objectID.entity.attributesByName[name], let value = Self.decode(text, attribute) { values[name] = value }
        }
        for (name, reference) in row.toOne {
            if let destination = self.objectID(reference) { values[name] = destination }
        }
        return NSIncrementalStoreNode(objectID: objectID, withValues: values, version: row.version)
    }

    override func newValue(forRelationship relationship: NSRelationshipDescription, forObjectWith objectID: NSManagedObjectID, with context: NSManagedObjectContext?) throws -> Any {
        let row = tables[objectID.entity.name!]?[number(objectID)]
        if relationship.isToMany {
            return (row?.toMany[relationship.name] ?? []).compactMap(objectID(_:))
        }
        return row?.toOne[relationship.name].flatMap(objectID(_:)) ?? NSNull()
    }

    // MARK: Requests

    override func execute(_ request: NSPersistentStoreRequest, with context: NSManagedObjectContext?) throws -> Any {
        guard let context else {
            throw NSError(domain: NSCocoaErrorDomain, code: NSPersistentStoreOperationError, userInfo: [NSLocalizedDescriptionKey: "JSONFileStore needs a context"])
        }
        if let save = request as? NSSaveChangesRequest { return try performSave(save, in: context) }
        guard let fetch = request as? NSFetchRequest<NSFetchRequestResult>, let entity = fetch.entity else {
            throw NSError(domain: NSCocoaErrorDomain, code: NSPersistentStoreUnsupportedRequestTypeError)
        }
        var entities = [entity]
        if fetch.includesSubentities {
            var index = 0
            while index < entities.count {
                entities += entities[index].subentities
                index += 1
            }
        }
        var objects: [NSManagedObject] = []
        for member in entities {
            for number in (tables[member.name!] ?? [:]).keys.sorted() {
                let object = context.object(with: newObjectID(for: member, referenceObject: number))
                if let predicate = fetch.predicate, !predicate.evaluate(with: object) { continue }
                objects.append(object)
            }
        }
        if let descriptors = fetch.sortDescriptors, !descriptors.isEmpty {
            objects = objects.enumerated().sorted { a, b in
                for descriptor in descriptors {
                    let order = descriptor.compare(a.element, to: b.element)
                    if order != .orderedSame { return order == .orderedAscending }
                }
                return a.offset < b.offset
            }.map(\.element)
        }
        if fetch.fetchOffset > 0 { objects = Array(objects.dropFirst(fetch.fetchOffset)) }
        if fetch.fetchLimit > 0 { objects = Array(objects.prefix(fetch.fetchLimit)) }
        switch fetch.resultType {
        case .countResultType: return [NSNumber(value: objects.count)]
        case .managedObjectIDResultType: return objects.map(\.objectID)
        default: return objects
        }
    }

    private func performSave(_ save: NSSaveChangesRequest, in context: NSManagedObjectContext) throws -> [Any] {
        let saved = Array((save.insertedObjects ?? []).union(save.updatedObjects ?? []))
        let deleted = save.deletedObjects ?? []
        var newRows: [NSManagedObjectID: Row] = [:]
        for object in saved {
            let old = tables[object.entity.name!]?[number(object.objectID)]
            newRows[object.objectID] = try row(for: object, version: (old?.version ?? 0) + 1)
        }
        try checkUniqueness(newRows, deleted: Set(deleted.map(\.objectID)), saved: saved, context: context)
        var changedEntities = Set<String>()
        for object in saved {
            tables[object.entity.name!, default: [:]][number(object.objectID)] = newRows[object.objectID]
            changedEntities.insert(object.entity.name!)
        }
        for object in deleted {
            tables[object.entity.name!]?[number(object.objectID)] = nil
            changedEntities.insert(object.entity.name!)
        }
        for name in changedEntities.sorted() {
            var file: [String: Any] = [:]
            for (number, row) in tables[name] ?? [:] {
                file[String(number)] = [
                    "version": NSNumber(value: row.version), "attributes": row.attributes,
                    "toOne": row.toOne.mapValues(Self.json), "toMany": row.toMany.mapValues { $0.map(Self.json) },
                ] as [String: Any]
            }
            try Self.write(file, to: directory.appendingPathComponent("\(name).json"))
        }
        try writeMetadata()
        return []
    }

    private func row(for object: NSManagedObject, version: UInt64) throws -> Row {
        var row = Row(version: version, attributes: [:], toOne: [:], toMany: [:])
        func reference(_ value: Any?) -> Reference? {
            guard let destination = value as? NSManagedObject else { return nil }
            return Reference(entity: destination.entity.name!, number: number(destination.objectID))
        }
        for (name, property) in object.entity.propertiesByName where !property.isTransient {
            switch property {
            case let attribute as NSAttributeDescription:
                if let value = object.value(forKey: name) { row.attributes[name] = try Self.encode(value, attribute) }
            case let relationship as NSRelationshipDescription:
                let value = object.value(forKey: name)
                if !relationship.isToMany {
                    row.toOne[name] = reference(value)
                } else {
                    let members = (value as? NSOrderedSet)?.array ?? (value as? NSSet)?.allObjects ?? []
                    let references = members.compactMap(reference)
                    row.toMany[name] = relationship.isOrdered ? references : references.sorted { ($0.entity, $0.number) < ($1.entity, $1.number) }
                }
            default:
                continue
            }
        }
        return row
    }

    /// Uniqueness constraints: no two objects of a constraint's entity hierarchy — saved now or stored — may share
    /// the constrained values (nil values never collide). A collision fails the save with Apple's error.
    private func checkUniqueness(_ newRows: [NSManagedObjectID: Row], deleted: Set<NSManagedObjectID>, saved: [NSManagedObject],
                                 context: NSManagedObjectContext) throws {
        guard let model = persistentStoreCoordinator?.managedObjectModel else { return }
        for declaring in model.entities {
            for constraint in declaring.uniquenessConstraints.map({ $0.compactMap { $0 as? String } }) where !constraint.isEmpty {
                guard saved.contains(where: { $0.entity.isKindOf(entity: declaring) }) else { continue }
                var owners: [[String]: [NSManagedObjectID]] = [:]
                func key(_ row: Row) -> [String]? {
                    let values = constraint.map { name in row.attributes[name] ?? row.toOne[name].map { "\($0.entity)/\($0.number)" } }
                    return values.contains { $0 == nil } ? nil : values.compactMap { $0 }
                }
                for entity in model.entities where entity.isKindOf(entity: declaring) {
                    for (number, row) in tables[entity.name!] ?? [:] {
                        let id = newObjectID(for: entity, referenceObject: number)
                        if newRows[id] != nil || deleted.contains(id) { continue }
                        if let key = key(row) { owners[key, default: []].append(id) }
                    }
                }
                for (id, row) in newRows where id.entity.isKindOf(entity: declaring) {
                    if let key = key(row) { owners[key, default: []].append(id) }
                }
                for ids in owners.values.sorted(by: { $0.count > $1.count }) where ids.count > 1 && ids.contains(where: { newRows[$0] != nil }) {
                    let database = ids.first { newRows[$0] == nil }.map { context.object(with: $0) }
                    let conflicting = ids.filter { newRows[$0] != nil }.compactMap { context.registeredObject(for: $0) }
                    let conflict = NSConstraintConflict(constraint: constraint, database: database, databaseSnapshot: nil, conflicting: conflicting,
                                                        conflictingSnapshots: conflicting.map { $0.committedValues(forKeys: nil) })
                    throw NSError(domain: NSCocoaErrorDomain, code: NSManagedObjectConstraintMergeError,
                                  userInfo: [NSPersistentStoreSaveConflictsErrorKey: [conflict]])
                }
            }
        }
    }

    // MARK: JSON

    private static func reference(_ value: Any) -> Reference? {
        guard let dictionary = value as? [String: Any], let entity = dictionary["entity"] as? String,
            let number = (dictionary["reference"] as? NSNumber)?.intValue
        else { return nil }
        return Reference(entity: entity, number: number)
    }

    private static func json(_ reference: Reference) -> [String: Any] {
        ["entity": reference.entity, "reference": NSNumber(value: reference.number)]
    }

    private static func readObject(_ file: URL) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any] else {
            throw NSError(domain: NSCocoaErrorDomain, code: NSFileReadCorruptFileError, userInfo: [NSFilePathErrorKey: file.path])
        }
        return object
    }

    private static func write(_ object: [String: Any], to file: URL) throws {
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]).write(to: file, options: .atomic)
    }

    /// The JSON text of an attribute value (as `value(forKey:)` returns it).
    private static func encode(_ value: Any, _ attribute: NSAttributeDescription) throws -> String {
        func failure() -> NSError {
            NSError(domain: NSCocoaErrorDomain, code: NSManagedObjectValidationError, userInfo: [NSValidationKeyErrorKey: attribute.name])
        }
        switch attribute.attributeType {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType:
            guard let number = value as? NSNumber else { throw failure() }
            return String(number.int64Value)
        case .doubleAttributeType:
            guard let number = value as? NSNumber else { throw failure() }
            return "\(number.doubleValue)"
        case .floatAttributeType:
            guard let number = value as? NSNumber else { throw failure() }
            return "\(number.floatValue)"
        case .decimalAttributeType:
            guard let number = value as? NSDecimalNumber else { throw failure() }
            return number.description(withLocale: nil)
        case .stringAttributeType:
            guard let string = value as? String else { throw failure() }
            return string
        case .dateAttributeType:
            guard let date = value as? Date else { throw failure() }
            return "\(date.timeIntervalSinceReferenceDate)"
        case .binaryDataAttributeType:
            guard let data = value as? Data else { throw failure() }
            return data.base64EncodedString()
        case .UUIDAttributeType:
            guard let uuid = value as? UUID else { throw failure() }
            return uuid.uuidString
        case .URIAttributeType:
            guard let url = value as? URL else { throw failure() }
            return url.absoluteString
        case .transformableAttributeType:
            let transformer = ValueTransformer(forName: NSValueTransformerName(attribute.valueTransformerName ?? ""))
            guard let data = transformer?.transformedValue(value) as? Data else { throw failure() }
            return data.base64EncodedString()
        default:
            throw failure()
        }
    }

    /// The value of an attribute from its JSON text (as `value(forKey:)` returns it).
    private static func decode(_ text: String, _ attribute: NSAttributeDescription) -> Any? {
        switch attribute.attributeType {
        case .integer16AttributeType: return Int16(text).map { NSNumber(value: $0) }
        case .integer32AttributeType: return Int32(text).map { NSNumber(value: $0) }
        case .integer64AttributeType: return Int64(text).map { NSNumber(value: $0) }
        case .booleanAttributeType: return Int64(text).map { NSNumber(value: $0 != 0) }
        case .doubleAttributeType: return Double(text).map { NSNumber(value: $0) }
        case .floatAttributeType: return Float(text).map { NSNumber(value: $0) }
        case .decimalAttributeType: return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")).map { NSDecimalNumber(decimal: $0) }
        case .stringAttributeType: return text
        case .dateAttributeType: return Double(text).map { Date(timeIntervalSinceReferenceDate: $0) }
        case .binaryDataAttributeType: return Data(base64Encoded: text)
        case .UUIDAttributeType: return UUID(uuidString: text)
        case .URIAttributeType: return URL(string: text)
        case .transformableAttributeType:
            let transformer = ValueTransformer(forName: NSValueTransformerName(attribute.valueTransformerName ?? ""))
            return Data(base64Encoded: text).flatMap { transformer?.reverseTransformedValue($0) }
        default: return nil
        }
    }
}
