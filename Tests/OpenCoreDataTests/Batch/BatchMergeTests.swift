import OpenCoreData
import Testing

/// Large batch requests (`BatchScale.rows` rows: `OPENCOREDATA_BATCH_ROWS`, 20,000 by default) whose
/// results are merged with `mergeChanges(fromRemoteContextSave:into:)` into a context that already holds objects:
/// after the merge the context's objects show the change. Timings are printed (`[batch timing] …`).
@Suite(.serialized) struct BatchMergeTests {
    static let clock = ContinuousClock()

    static func report(_ what: String, _ kind: StoreKind, _ rows: Int, _ duration: Duration) {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        print("[batch timing] \(what) of \(rows) rows (\(kind.rawValue)): \(String(format: "%.2f", seconds)) s")
    }

    /// Inserts `rows` items (name `n<i>`, rating `i % 100`, price `i`) with one batch request; returns their IDs.
    static func insertItems(_ stack: BatchStack, rows: Int) throws -> [NSManagedObjectID] {
        try stack.run { context in
            var index = 0
            let request = NSBatchInsertRequest(entityName: "Item", dictionaryHandler: { dictionary in
                guard index < rows else { return true }
                dictionary["name"] = "n\(index)"
                dictionary["rating"] = index % 100
                dictionary["price"] = Double(index)
                index += 1
                return false
            })
            request.resultType = .objectIDs
            return try #require((try context.execute(request) as? NSBatchInsertResult)?.result as? [NSManagedObjectID])
        }
    }

    /// Fetches every item into `context` (registered as faults with their rows cached) and realizes every 100th;
    /// returns the objects in the order of `ids`.
    static func register(_ context: NSManagedObjectContext, _ ids: [NSManagedObjectID]) throws -> [NSManagedObject] {
        try context.performAndWait {
            let fetched = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item"))
            let byID = Dictionary(uniqueKeysWithValues: fetched.map { ($0.objectID, $0) })
            let objects = ids.compactMap { byID[$0] }
            for index in stride(from: 0, to: objects.count, by: 100) { _ = objects[index].value(forKey: "rating") }
            return objects
        }
    }

    @Test(arguments: StoreKind.batchCapable)
    func batchInsertThenMerge(kind: StoreKind) throws {
        let rows = BatchScale.rows
        let stack = try BatchStack(kind)
        let viewContext = stack.newContext()
        let existing = try stack.seedItems(1)[0]
        let registered = try viewContext.performAndWait { try viewContext.existingObject(with: existing) }

        let start = Self.clock.now
        let ids = try Self.insertItems(stack, rows: rows)
        Self.report("batch insert", kind, rows, Self.clock.now - start)
        #expect(ids.count == rows)
        #expect(Set(ids).count == rows && !ids.contains(existing))

        let announced = InsertedCount()
        let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextObjectsDidChange, object: viewContext, queue: nil) { note in
            announced.add((note.userInfo?[NSInsertedObjectsKey] as? Set<NSManagedObject>)?.count ?? 0)
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let mergeStart = Self.clock.now
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSInsertedObjectsKey: ids], into: [viewContext])
        Self.report("merge of an inserted batch", kind, rows, Self.clock.now - mergeStart)
        #expect(announced.value == rows, "the merge announces the new objects as inserted")
        let checks = Self.clock.now
        defer { Self.report("checks after the merge", kind, rows, Self.clock.now - checks) }
        try viewContext.performAndWait {
            #expect(registered.value(forKey: "name") as? String == "item-0000")
            let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
            request.predicate = NSPredicate(format: "rating == 42")
            let rated = try viewContext.fetch(request)
            #expect(rated.count == (rows + 57) / 100)
            #expect(rated.allSatisfy { $0.value(forKey: "rating") as? Int == 42 })
            let last = try viewContext.existingObject(with: ids[rows - 1])
            #expect(last.value(forKey: "name") as? String == "n\(rows - 1)")
            #expect(last.value(forKey: "price") as? Double == Double(rows - 1))
        }
    }

    @Test(arguments: StoreKind.batchCapable)
    func batchUpdateThenMerge(kind: StoreKind) throws {
        let rows = BatchScale.rows
        let stack = try BatchStack(kind)
        var phase = Self.clock.now
        let ids = try Self.insertItems(stack, rows: rows)
        Self.report("setup: batch insert", kind, rows, Self.clock.now - phase)
        phase = Self.clock.now
        let viewContext = stack.newContext()
        let objects = try Self.register(viewContext, ids)
        Self.report("setup: fetch into the context", kind, rows, Self.clock.now - phase)
        #expect(objects.count == rows)

        let start = Self.clock.now
        let updated = try stack.run { context -> [NSManagedObjectID] in
            let request = NSBatchUpdateRequest(entityName: "Item")
            request.propertiesToUpdate = ["rating": NSExpression(format: "rating + 1000"), "flag": true]
            request.resultType = .updatedObjectIDsResultType
            return try #require((try context.execute(request) as? NSBatchUpdateResult)?.result as? [NSManagedObjectID])
        }
        Self.report("batch update", kind, rows, Self.clock.now - start)
        #expect(updated.count == rows && Set(updated) == Set(ids))
        viewContext.performAndWait {
            #expect(objects[0].value(forKey: "rating") as? Int == 0, "a batch update does not touch contexts")
        }

        let mergeStart = Self.clock.now
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectsKey: updated], into: [viewContext])
        Self.report("merge of an updated batch", kind, rows, Self.clock.now - mergeStart)
        phase = Self.clock.now
        defer { Self.report("checks after the merge", kind, rows, Self.clock.now - phase) }
        try viewContext.performAndWait {
            for index in stride(from: 0, to: rows, by: max(1, rows / 1000)) {
                #expect(objects[index].value(forKey: "rating") as? Int == index % 100 + 1000)
                #expect(objects[index].value(forKey: "flag") as? Bool == true)
            }
            // The merged objects save without conflicts: the context knows the new versions.
            objects[1].setValue("edited", forKey: "name")
            try viewContext.save()
        }
    }

    @Test(arguments: StoreKind.batchCapable)
    func batchDeleteThenMerge(kind: StoreKind) throws {
        let rows = BatchScale.rows
        let stack = try BatchStack(kind)
        let ids = try Self.insertItems(stack, rows: rows)
        let viewContext = stack.newContext()
        let objects = try Self.register(viewContext, ids)

        let start = Self.clock.now
        let deleted = try stack.run { context -> [NSManagedObjectID] in
            let request = NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Item"))
            request.resultType = .resultTypeObjectIDs
            return try #require((try context.execute(request) as? NSBatchDeleteResult)?.result as? [NSManagedObjectID])
        }
        Self.report("batch delete", kind, rows, Self.clock.now - start)
        #expect(deleted.count == rows && Set(deleted) == Set(ids))

        let mergeStart = Self.clock.now
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSDeletedObjectsKey: deleted], into: [viewContext])
        Self.report("merge of a deleted batch", kind, rows, Self.clock.now - mergeStart)
        try viewContext.performAndWait {
            #expect(viewContext.registeredObjects.isEmpty)
            #expect(objects.allSatisfy { $0.isDeleted && $0.isFault && $0.managedObjectContext == nil })
            #expect(viewContext.registeredObject(for: ids[0]) == nil)
            let leftCount = try viewContext.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item"))
            #expect(leftCount == 0)
            #expect(!viewContext.hasChanges)
        }
    }

    @Test(arguments: StoreKind.batchCapable)
    func unmergedFaultsOfDeletedRowsFireAsDeletedObjects(kind: StoreKind) throws {
        let stack = try BatchStack(kind)
        let ids = try Self.insertItems(stack, rows: 10)
        let viewContext = stack.newContext()
        let fault = viewContext.performAndWait { viewContext.object(with: ids[3]) }
        try stack.run { context in _ = try context.execute(NSBatchDeleteRequest(objectIDs: ids)) }
        viewContext.performAndWait {
            #expect(fault.isFault)
            #expect(fault.value(forKey: "name") == nil)
            #expect(fault.isDeleted, "shouldDeleteInaccessibleFaults turns the fault into a deleted object")
            #expect(caughtError { try viewContext.existingObject(with: ids[4]) }?.code == NSManagedObjectReferentialIntegrityError)
        }
    }
}

/// A count updated by a notification observer.
final class InsertedCount: @unchecked Sendable {  // every access to `count` holds `lock`
    private let lock = NSLock()
    private var count = 0
    func add(_ value: Int) { lock.withLock { count += value } }
    var value: Int { lock.withLock { count } }
}
