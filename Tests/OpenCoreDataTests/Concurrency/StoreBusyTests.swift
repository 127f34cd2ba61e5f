import CSQLite
import Foundation
import Testing

@testable import OpenCoreData

// What a save does when another connection (another process, in real life) holds SQLite's write lock longer than
// the store's busy timeout (`NSPersistentStoreTimeoutOption`): it throws Core Data's SQLite error — no crash, no
// partial write — keeps the context's changes, and the same save succeeds once the lock is released. The stress
// suite exercises the ordinary case (waits shorter than the timeout) with a second process.

@Suite("SQLITE_BUSY through a context save")
struct StoreBusyTests {
    @Test func aSaveThatOutwaitsTheBusyTimeoutThrowsAndCanBeRetried() throws {
        let url = try TemporaryDirectory.make().appendingPathComponent("Busy.sqlite")
        let container = NSPersistentContainer(name: "Busy", managedObjectModel: StressModel.shared)
        let description = NSPersistentStoreDescription(url: url)
        description.setOption(NSNumber(value: 0.2), forKey: NSPersistentStoreTimeoutOption)
        container.persistentStoreDescriptions = [description]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        try #require(loadError == nil)
        let context = container.newBackgroundContext()
        let itemID = try context.performAndWait {
            let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
            item.setValue("before", forKey: "title")
            try context.save()
            return item.objectID
        }

        // Another connection takes the write lock and keeps it.
        var holder: OpaquePointer?
        try #require(sqlite3_open_v2(url.path, &holder, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK)
        defer { sqlite3_close_v2(holder) }
        try #require(sqlite3_exec(holder, "BEGIN IMMEDIATE", nil, nil, nil) == SQLITE_OK)

        let started = Date()
        let error = try context.performAndWait {
            let item = try context.existingObject(with: itemID)
            item.setValue("after", forKey: "title")
            NSEntityDescription.insertNewObject(forEntityName: "Item", into: context).setValue("new", forKey: "title")
            return expectCocoaError(NSSQLiteError) { try context.save() }
        }
        #expect(Date().timeIntervalSince(started) >= 0.15, "the save waited for the busy timeout")
        #expect(error?.domain == NSCocoaErrorDomain)
        #expect(context.performAndWait { context.hasChanges && context.insertedObjects.count == 1 }, "the changes are still there")

        try #require(sqlite3_exec(holder, "COMMIT", nil, nil, nil) == SQLITE_OK)
        let reader = StressRawReader(path: url.path)
        #expect(reader.allRows("Item").count == 1, "the failed save wrote nothing")
        try context.performAndWait { try context.save() }
        let titles = Set(reader.allRows("Item").values.compactMap { row -> String? in
            if case .text(let title)? = row.values["title"] { return title }
            return nil
        })
        #expect(titles == ["after", "new"])
    }
}
