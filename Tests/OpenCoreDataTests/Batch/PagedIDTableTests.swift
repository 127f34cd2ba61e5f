import Foundation
import Testing

@testable import OpenCoreData

/// The row cache's table of one hierarchy keeps the primary-key rows of one store in pages and every other row
/// by ID, with the same equality as object IDs have: a super-entity's ID finds a sub-entity's row. A context's
/// registry keeps one such table per hierarchy: equal primary keys of two hierarchies are two objects.
@Suite struct PagedIDTableTests {
    private let item = BatchModel.shared.entitiesByName["Item"]!
    private let special = BatchModel.shared.entitiesByName["SpecialItem"]!

    /// Two stores, so that IDs of two store identifiers can be made.
    private let stores: (NSPersistentStore, NSPersistentStore) = {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: BatchModel.shared)
        let first = try! coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        let second = try! coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        return (first, second)
    }()

    private func entry(_ objectID: NSManagedObjectID, _ name: String, version: Int64 = 1) -> RowCache.Entry {
        var snapshot = objectID.entity.layout.emptySnapshot()
        snapshot.attributes[0] = .text(name)
        snapshot.version = version
        return RowCache.Entry(objectID: objectID, snapshot: snapshot, fetched: .now, generation: 0)
    }

    private func name(_ entry: RowCache.Entry?) -> String? {
        guard case .text(let name)? = entry?.snapshot.attributes[0] else { return nil }
        return name
    }

    // A scan's prefetch reads a cached row's ID and values as raw memory at the entry's offsets: they must be the
    // addresses of that row's ID and of its values' storage, and nothing for a slot or page without a row.
    @Test func theRawAddressesOfARowAreItsIDAndItsValues() throws {
        let (first, _) = stores
        let objectID = NSManagedObjectID(entity: item, key: .primaryKey(40), store: first)
        var table = RowTable()
        table[objectID] = entry(objectID, "forty")
        let store = objectID.storeIdentifier
        let found = table.referencedAddresses(store: store, primaryKey: 40)
        let addresses = try #require(found)
        #expect(addresses.objectID == UnsafeRawPointer(Unmanaged.passUnretained(objectID).toOpaque()))
        let values = try #require(table[objectID]?.snapshot.attributes)
        #expect(MemoryLayout<[StoredValue]>.size == MemoryLayout<UnsafeRawPointer>.size, "an array is one reference")
        #expect(addresses.values == unsafeBitCast(values, to: UnsafeRawPointer.self))
        let emptySlot = table.referencedAddresses(store: store, primaryKey: 41)
        let pageNotMade = table.referencedAddresses(store: store, primaryKey: 4_000)
        let otherStore = table.referencedAddresses(store: "another store", primaryKey: 40)
        #expect(emptySlot == nil, "an empty slot of a made page")
        #expect(pageNotMade == nil, "a page not made")
        #expect(otherStore == nil)
        table.prefetch(store: store, primaryKey: 41)   // a hint about nothing: no effect, no fault
        table.prefetch(store: store, primaryKey: 40)
        #expect(name(table[objectID]) == "forty")
    }

    @Test func everyKindOfIDFindsItsRow() {
        let (first, second) = stores
        let paged = NSManagedObjectID(entity: item, key: .primaryKey(5), store: first)
        let otherStore = NSManagedObjectID(entity: item, key: .primaryKey(5), store: second)
        let huge = NSManagedObjectID(entity: item, key: .primaryKey(1 << 40), store: first)
        let negative = NSManagedObjectID(entity: item, key: .primaryKey(-3), store: first)
        let temporary = NSManagedObjectID.temporary(for: item)
        var table = RowTable()
        for objectID in [paged, otherStore, huge, negative, temporary] { table[objectID] = entry(objectID, "\(objectID)") }
        #expect(table.count == 5)
        for objectID in [paged, otherStore, huge, negative, temporary] { #expect(name(table[objectID]) == "\(objectID)") }
        // An equal ID made anew, and a sub-entity's ID of the same key (equal within the hierarchy), find the row.
        #expect(name(table[NSManagedObjectID(entity: item, key: .primaryKey(5), store: first)]) == "\(paged)")
        #expect(table[NSManagedObjectID(entity: special, key: .primaryKey(5), store: first)]?.objectID === paged)
        #expect(table[NSManagedObjectID(entity: item, key: .primaryKey(6), store: first)] == nil)

        table[paged] = entry(paged, "replaced")
        #expect(table.count == 5, "replacing a row does not count it twice")
        #expect(table.withEntry(for: paged) { entry -> String? in
            entry.snapshot.version = 9
            return self.name(entry)
        } == "replaced")
        #expect(table[paged]?.snapshot.version == 9, "changed in place")
        for objectID in [paged, otherStore, huge, negative, temporary] { table.removeValue(for: objectID) }
        table.removeValue(for: paged)
        #expect(table.count == 0)
        for objectID in [paged, otherStore, huge, negative, temporary] { #expect(table[objectID] == nil) }
    }

    @Test func rowsAreFoundByPrimaryKeyWithoutAnID() {
        let (first, second) = stores
        let paged = NSManagedObjectID(entity: item, key: .primaryKey(40), store: first)
        var table = RowTable()
        table[paged] = entry(paged, "forty")
        let store = paged.storeIdentifier
        #expect(table.withEntry(store: store, primaryKey: 40) { self.name($0) } == "forty")
        #expect(table.withEntry(store: store, primaryKey: 41) { self.name($0) } == nil)
        #expect(table.isPaged(store: store, primaryKey: 41), "a paged store's missing row is known missing")
        #expect(!table.isPaged(store: NSManagedObjectID(entity: item, key: .primaryKey(1), store: second).storeIdentifier, primaryKey: 40),
                "another store's rows are found by ID only")
        #expect(!table.isPaged(store: store, primaryKey: 1 << 40))
        #expect(table.count(where: { $0.snapshot.version == 1 }) == 1)
    }

    @Test func theRegistryKeepsEqualKeysOfTwoHierarchiesApart() {
        let (first, _) = stores
        let product = BatchModel.shared.entitiesByName["Product"]!
        let itemID = NSManagedObjectID(entity: item, key: .primaryKey(5), store: first)
        let productID = NSManagedObjectID(entity: product, key: .primaryKey(5), store: first)
        let temporaryID = NSManagedObjectID.temporary(for: item)
        var registry = ObjectRegistry()
        var objects: [NSManagedObject] = []
        for objectID in [itemID, productID, temporaryID] {
            let object = NSManagedObject(entity: objectID.entity, insertInto: nil)
            object._objectID = objectID
            registry[objectID] = object
            objects.append(object)
        }
        #expect(registry.count == 3)
        #expect(registry[itemID] === objects[0] && registry[productID] === objects[1] && registry[temporaryID] === objects[2])
        #expect(registry[NSManagedObjectID(entity: special, key: .primaryKey(5), store: first)] === objects[0], "a sub-entity's equal ID")
        #expect(Set(registry.values.map(ObjectIdentifier.init)) == Set(objects.map(ObjectIdentifier.init)))
        // Only objects nobody else holds are released.
        let heldProduct = objects[1]
        objects.removeAll()
        let released = registry.removeReleasable(among: nil)
        #expect(Set(released) == [itemID, temporaryID])
        #expect(registry.count == 1 && registry[productID] === heldProduct)
        #expect(registry.removeValue(forKey: productID) === heldProduct)
        #expect(registry.count == 0 && registry[productID] == nil)
    }

    /// A temporary ID whose UUID ends in `counter` (as ``TemporaryIDSource`` makes them), after `prefix`.
    private func temporaryID(_ entity: NSEntityDescription, counter: UInt64, prefix: UInt64 = 0x0123_4567_89AB_CDEF) -> NSManagedObjectID {
        let bytes = withUnsafeBytes(of: (prefix.bigEndian, counter.bigEndian)) { Array($0) }
        let uuid = UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                               bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        return NSManagedObjectID(entity: entity, key: .temporary(uuid), store: nil)
    }

    @Test func temporaryIDsArePagedByTheirCounterAndKeptApartWhenTheyCollide() {
        var table = RowTable()
        let inserted = (0..<100).map { _ in NSManagedObjectID.temporary(for: item) }
        for objectID in inserted { table[objectID] = entry(objectID, "\(objectID)") }
        #expect(zip(inserted, inserted.dropFirst()).allSatisfy { $0.temporaryCounter < $1.temporaryCounter }, "counters count up")
        // IDs whose counters fall in the pages but that are other IDs: another prefix, another entity of the hierarchy.
        let counter = inserted[10].temporaryCounter
        let otherPrefix = temporaryID(item, counter: counter)
        let otherEntity = NSManagedObjectID(entity: special, key: inserted[10].key, store: nil)
        #expect(!otherEntity.isSame(as: inserted[10]), "temporary IDs of two entities are two IDs")
        #expect(table[otherPrefix] == nil && table[otherEntity] == nil)
        table[otherPrefix] = entry(otherPrefix, "other prefix")
        table[otherEntity] = entry(otherEntity, "other entity")
        #expect(table.count == 102)
        #expect(name(table[otherPrefix]) == "other prefix" && name(table[otherEntity]) == "other entity")
        #expect(name(table[inserted[10]]) == "\(inserted[10])", "the paged ID keeps its slot")
        #expect(table.withEntry(for: otherEntity) { self.name($0) } == "other entity")
        // A far counter and a counter before the first page are kept by ID.
        let far = temporaryID(item, counter: counter + (1 << 30)), before = temporaryID(item, counter: counter &- 64)
        table[far] = entry(far, "far")
        table[before] = entry(before, "before")
        #expect(name(table[far]) == "far" && name(table[before]) == "before" && table.count == 104)
        #expect(Set(table.values.map(\.objectID)) == Set(inserted + [otherPrefix, otherEntity, far, before]))

        for objectID in inserted { #expect(table.removeValue(for: objectID) != nil) }
        #expect(table.count == 4 && name(table[otherEntity]) == "other entity" && table[inserted[10]] == nil)
        // Once the pages are empty, they start again at the next counter held, however far it is.
        let later = temporaryID(item, counter: counter + (1 << 40))
        table[later] = entry(later, "later")
        #expect(name(table[later]) == "later" && name(table[far]) == "far" && table.count == 5)
        for objectID in [otherPrefix, otherEntity, far, before, later] { table.removeValue(for: objectID) }
        #expect(table.count == 0 && table.values.isEmpty)
    }
}
