import Foundation

@testable import OpenCoreData

/// A model with an entity hierarchy for the migration tests (`Shelf.xcdatamodeld`, versions `Shelf 1` and
/// `Shelf 2`): an abstract `Item` with a required to-one `owner` (Person), a to-many `tags` of at least one Tag
/// (many-to-many) and a to-many `notes` (one-to-many, Note.item), and its sub-entities `Book` and `Film`, which
/// inherit all three. Version 2 adds `Film.rating` and `Person.email`.
enum HierarchyMigrationModels {
    static func version(_ number: Int, personEmailRequired: Bool = false, tagMinimum: Int = 1) -> String {
        let filmRating = number >= 2 ? #"<attribute name="rating" optional="YES" attributeType="Integer 16" usesScalarValueType="NO"/>"# : ""
        let email = number >= 2 ? #"<attribute name="email" \#(personEmailRequired ? "" : #"optional="YES" "#)attributeType="String"/>"# : ""
        return """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22522" systemVersion="23A344" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
                <entity name="Book" representedClassName="Book" parentEntity="Item" syncable="YES">
                    <attribute name="pages" optional="YES" attributeType="Integer 32" usesScalarValueType="NO"/>
                </entity>
                <entity name="Film" representedClassName="Film" parentEntity="Item" syncable="YES">
                    <attribute name="minutes" optional="YES" attributeType="Integer 32" usesScalarValueType="NO"/>
                    \(filmRating)
                </entity>
                <entity name="Item" representedClassName="Item" isAbstract="YES" syncable="YES">
                    <attribute name="title" optional="YES" attributeType="String"/>
                    <relationship name="notes" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Note" inverseName="item" inverseEntity="Note"/>
                    <relationship name="owner" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="items" inverseEntity="Person"/>
                    <relationship name="tags" toMany="YES" minCount="\(tagMinimum)" deletionRule="Nullify" destinationEntity="Tag" inverseName="items" inverseEntity="Tag"/>
                </entity>
                <entity name="Note" representedClassName="Note" syncable="YES">
                    <attribute name="text" optional="YES" attributeType="String"/>
                    <relationship name="item" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Item" inverseName="notes" inverseEntity="Item"/>
                </entity>
                <entity name="Person" representedClassName="Person" syncable="YES">
                    \(email)
                    <attribute name="name" optional="YES" attributeType="String"/>
                    <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="owner" inverseEntity="Item"/>
                </entity>
                <entity name="Tag" representedClassName="Tag" syncable="YES">
                    <attribute name="label" optional="YES" attributeType="String"/>
                    <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="tags" inverseEntity="Item"/>
                </entity>
            </model>
            """
    }

    /// Writes `Shelf.xcdatamodeld` (current version `Shelf 2`) into a new temporary folder.
    static func package(version2: String = version(2)) throws -> URL {
        let package = try TemporaryDirectory.make().appendingPathComponent("Shelf.xcdatamodeld")
        for (name, contents) in [("Shelf 1", version(1)), ("Shelf 2", version2)] {
            let folder = package.appendingPathComponent(name + ".xcdatamodel")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(contents.utf8).write(to: folder.appendingPathComponent("contents"))
        }
        let current = try PropertyListSerialization.data(fromPropertyList: ["_XCCurrentVersionName": "Shelf 2.xcdatamodel"], format: .xml, options: 0)
        try current.write(to: package.appendingPathComponent(".xccurrentversion"))
        return package
    }

    static func model(_ package: URL, version: Int) throws -> NSManagedObjectModel {
        try NSManagedObjectModel(validatingContentsOf: package, versionName: "Shelf \(version)")
    }

    /// A version-1 store: Ada owns the book "Engines" (tags swift + data, notes n1 n2) and the film "Loops"
    /// (tag data, note n3); Bob owns the book "Orphan" (tag swift, no notes).
    static func makeVersion1Store(_ package: URL, options: [AnyHashable: Any]? = nil) throws -> URL {
        let url = try TemporaryDirectory.make().appendingPathComponent("Shelf.sqlite")
        let coordinator = try NSPersistentStoreCoordinator(managedObjectModel: model(package, version: 1))
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        func insert(_ entity: String, _ values: [String: Any]) -> NSManagedObject {
            let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
            for (key, value) in values { object.setValue(value, forKey: key) }
            return object
        }
        let ada = insert("Person", ["name": "Ada"]), bob = insert("Person", ["name": "Bob"])
        let swift = insert("Tag", ["label": "swift"]), data = insert("Tag", ["label": "data"])
        let engines = insert("Book", ["title": "Engines", "pages": 120, "owner": ada])
        engines.mutableSetValue(forKey: "tags").addObjects(from: [swift, data])
        let loops = insert("Film", ["title": "Loops", "minutes": 90, "owner": ada])
        loops.mutableSetValue(forKey: "tags").add(data)
        let orphan = insert("Book", ["title": "Orphan", "pages": 7, "owner": bob])
        orphan.mutableSetValue(forKey: "tags").add(swift)
        _ = insert("Note", ["text": "n1", "item": engines])
        _ = insert("Note", ["text": "n2", "item": engines])
        _ = insert("Note", ["text": "n3", "item": loops])
        try context.save()
        try coordinator.remove(coordinator.persistentStores[0])
        return url
    }

    /// What every item holds, by title: "entity owner [tags] [notes]".
    static func summary(of context: NSManagedObjectContext) throws -> [String: String] {
        var result: [String: String] = [:]
        for item in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")) {
            let owner = (item.value(forKey: "owner") as? NSManagedObject)?.value(forKey: "name") as? String ?? "-"
            let tags = (item.value(forKey: "tags") as? Set<NSManagedObject> ?? []).compactMap { $0.value(forKey: "label") as? String }.sorted()
            let notes = (item.value(forKey: "notes") as? Set<NSManagedObject> ?? []).compactMap { $0.value(forKey: "text") as? String }.sorted()
            result[item.value(forKey: "title") as? String ?? "?"] = "\(item.entity.name ?? "?") \(owner) \(tags) \(notes)"
        }
        return result
    }

    /// The inverse sides: person → titles, tag → titles, note → title.
    static func inverseSummary(of context: NSManagedObjectContext) throws -> [String: [String]] {
        var result: [String: [String]] = [:]
        func titles(_ object: NSManagedObject, _ key: String) -> [String] {
            (object.value(forKey: key) as? Set<NSManagedObject> ?? []).compactMap { $0.value(forKey: "title") as? String }.sorted()
        }
        for person in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")) {
            result["person " + (person.value(forKey: "name") as? String ?? "?")] = titles(person, "items")
        }
        for tag in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Tag")) {
            result["tag " + (tag.value(forKey: "label") as? String ?? "?")] = titles(tag, "items")
        }
        for note in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note")) {
            result["note " + (note.value(forKey: "text") as? String ?? "?")] = [((note.value(forKey: "item") as? NSManagedObject)?.value(forKey: "title") as? String) ?? "-"]
        }
        return result
    }

    static let expectedSummary = [
        "Engines": "Book Ada [\"data\", \"swift\"] [\"n1\", \"n2\"]",
        "Loops": "Film Ada [\"data\"] [\"n3\"]",
        "Orphan": "Book Bob [\"swift\"] []",
    ]
    static let expectedInverses: [String: [String]] = [
        "person Ada": ["Engines", "Loops"], "person Bob": ["Orphan"],
        "tag swift": ["Engines", "Orphan"], "tag data": ["Engines", "Loops"],
        "note n1": ["Engines"], "note n2": ["Engines"], "note n3": ["Loops"],
    ]

    static func context(_ url: URL, model: NSManagedObjectModel, options: [AnyHashable: Any]? = nil) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: options)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }
}
