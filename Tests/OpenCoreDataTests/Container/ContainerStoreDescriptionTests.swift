import OpenCoreData
import Testing

// NSPersistentStoreDescription: Apple documents the defaults (SQLite, shouldAddStoreAsynchronously false,
// automatic migration with an inferred mapping model) and that the settings are store options; copies,
// equality and the printed form follow Apple's implementation.

/// A description subclass, to check that copies keep their class.
final class TaggedStoreDescription: NSPersistentStoreDescription, @unchecked Sendable {}

@Suite("NSPersistentStoreDescription")
struct ContainerStoreDescriptionTests {
    @Test func defaultsAreApples() {
        let url = URL(fileURLWithPath: "/tmp/ocd-description/App.sqlite")
        let description = NSPersistentStoreDescription(url: url)
        #expect(description.type == NSSQLiteStoreType)
        #expect(description.url == url)
        #expect(description.configuration == nil)
        #expect(description.isReadOnly == false)
        #expect(description.timeout == 240)
        #expect(description.shouldAddStoreAsynchronously == false)
        #expect(description.shouldMigrateStoreAutomatically == true)
        #expect(description.shouldInferMappingModelAutomatically == true)
        #expect(description.sqlitePragmas.isEmpty)
        #expect(Set(description.options.keys) == [NSMigratePersistentStoresAutomaticallyOption, NSInferMappingModelAutomaticallyOption])
        #expect((description.options[NSMigratePersistentStoresAutomaticallyOption] as? NSNumber)?.boolValue == true)

        let empty = NSPersistentStoreDescription()
        #expect(empty.url == URL(fileURLWithPath: "/dev/null"))
        #expect(empty.type == NSSQLiteStoreType)
    }

    @Test func settingsAreStoreOptions() {
        let description = NSPersistentStoreDescription()
        description.isReadOnly = true
        description.timeout = 5
        description.shouldAddStoreAsynchronously = true
        description.shouldMigrateStoreAutomatically = false
        description.shouldInferMappingModelAutomatically = false
        let options = description.options
        #expect((options[NSReadOnlyPersistentStoreOption] as? NSNumber)?.boolValue == true)
        #expect((options[NSPersistentStoreTimeoutOption] as? NSNumber)?.doubleValue == 5)
        #expect((options["NSAddStoreAsynchronouslyOption"] as? NSNumber)?.boolValue == true)
        #expect((options[NSMigratePersistentStoresAutomaticallyOption] as? NSNumber)?.boolValue == false)
        #expect((options[NSInferMappingModelAutomaticallyOption] as? NSNumber)?.boolValue == false)
        #expect(description.isReadOnly && description.timeout == 5 && description.shouldAddStoreAsynchronously)

        // Options set by key are what the properties read.
        description.setOption(NSNumber(value: false), forKey: NSReadOnlyPersistentStoreOption)
        #expect(description.isReadOnly == false)
        description.setOption(nil, forKey: NSPersistentStoreTimeoutOption)
        #expect(description.timeout == 240)
        description.setOption("value" as NSString, forKey: "MyStoreOption")
        #expect(description.options["MyStoreOption"] as? NSString == "value")
    }

    @Test func pragmasAreADictionaryOption() throws {
        let description = NSPersistentStoreDescription()
        description.setValue("DELETE" as NSString, forPragmaNamed: "journal_mode")
        description.setValue(NSNumber(value: -4000), forPragmaNamed: "cache_size")
        #expect(description.sqlitePragmas["journal_mode"] as? NSString == "DELETE")
        #expect(description.sqlitePragmas["cache_size"] as? NSNumber == NSNumber(value: -4000))
        let option = try #require(description.options[NSSQLitePragmasOption] as? NSDictionary)
        #expect(option.count == 2)
        description.setValue(nil, forPragmaNamed: "cache_size")
        #expect(Array(description.sqlitePragmas.keys) == ["journal_mode"])
    }

    @Test func copiesAreEqualIndependentAndOfTheSameClass() throws {
        let description = TaggedStoreDescription(url: URL(fileURLWithPath: "/tmp/ocd-description/../ocd-description/A.sqlite"))
        description.configuration = "Catalog"
        description.setValue("FULL" as NSString, forPragmaNamed: "synchronous")
        let copy = try #require(description.copy() as? TaggedStoreDescription)
        #expect(copy !== description)
        #expect(copy == description)
        #expect(copy.hash == description.hash)
        #expect(copy.configuration == "Catalog")
        #expect(copy.sqlitePragmas["synchronous"] as? NSString == "FULL")

        copy.url = URL(fileURLWithPath: "/tmp/ocd-description/B.sqlite")
        #expect(description.url?.lastPathComponent == "A.sqlite")
        #expect(copy != description)

        // Equal: same standardized URL, type, configuration and options.
        let same = NSPersistentStoreDescription(url: URL(fileURLWithPath: "/tmp/ocd-description/A.sqlite"))
        same.configuration = "Catalog"
        same.setValue("FULL" as NSString, forPragmaNamed: "synchronous")
        #expect(same == description)
        same.isReadOnly = true
        #expect(same != description)
        same.isReadOnly = false
        same.type = NSInMemoryStoreType
        #expect(same != description)
    }

    @Test func printsTypeAndURLAsApple() {
        let description = NSPersistentStoreDescription(url: URL(fileURLWithPath: "/tmp/ocd-description/A.sqlite"))
        #expect(description.description.hasPrefix("<NSPersistentStoreDescription: 0x"))
        #expect(description.description.hasSuffix("> (type: SQLite, url: file:///tmp/ocd-description/A.sqlite)"))
        description.url = nil
        #expect(description.description.hasSuffix("(type: SQLite, url: (null))"))
    }

    @Test func descriptionsAndContainersAreSendable() async {
        func requireSendable<T: Sendable>(_: T.Type) {}
        requireSendable(NSPersistentStoreDescription.self)
        requireSendable(NSPersistentContainer.self)
        let description = NSPersistentStoreDescription()
        let type = await Task.detached { description.type }.value
        #expect(type == NSSQLiteStoreType)
    }
}
