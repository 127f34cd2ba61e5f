import OpenCoreData
import Testing

/// Fetched properties as Apple documents them: the value is the result of the property's fetch request, whose
/// predicate may use `$FETCH_SOURCE` (the object) and `$FETCHED_PROPERTY` (the fetched property's description, e.g.
/// `$FETCHED_PROPERTY.userInfo.search` to read a value the model editor put in its user info), and whose sort
/// descriptors order the value (an array).
@Suite("Fetched properties: $FETCH_SOURCE, $FETCHED_PROPERTY and sort descriptors")
struct FetchedPropertyTests {
    /// A model as Xcode writes it: a Shelf with a fetched property whose predicate reads its own user info, and
    /// Items on shelves.
    static let contents = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="1" systemVersion="1" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Shelf" representedClassName="Shelf" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="shelf" inverseEntity="Item"/>
                <fetchedProperty name="matchingItems" optional="YES">
                    <fetchRequest name="fetchedPropertyFetchRequest" entity="Item" predicateString="shelf == $FETCH_SOURCE AND name CONTAINS[c] $FETCHED_PROPERTY.userInfo.search"/>
                    <userInfo>
                        <entry key="search" value="PE"/>
                    </userInfo>
                </fetchedProperty>
            </entity>
            <entity name="Item" representedClassName="Item" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <attribute name="price" optional="YES" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
                <relationship name="shelf" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Shelf" inverseName="items" inverseEntity="Shelf"/>
            </entity>
        </model>
        """

    /// The model read from the XML above, with a second fetched property added in code whose request sorts by
    /// price, descending, then name.
    static func model(in directory: TemporaryStoreDirectory) throws -> NSManagedObjectModel {
        let package = directory.url.appendingPathComponent("Shelves.xcdatamodel", isDirectory: true)
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        try contents.write(to: package.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        let model = try #require(NSManagedObjectModel(contentsOf: package))
        let shelf = try #require(model.entitiesByName["Shelf"])
        let byPrice = NSFetchedPropertyDescription()
        byPrice.name = "itemsByPrice"
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Item")
        request.predicate = NSPredicate(format: "shelf == $FETCH_SOURCE")
        request.sortDescriptors = [NSSortDescriptor(key: "price", ascending: false), NSSortDescriptor(key: "name", ascending: true)]
        byPrice.fetchRequest = request
        shelf.properties = shelf.properties + [byPrice]
        return model
    }

    @Test("the predicate reads $FETCHED_PROPERTY.userInfo and $FETCH_SOURCE; the sort descriptors order the array",
          arguments: [NSInMemoryStoreType, NSSQLiteStoreType])
    func fetchedPropertyValues(storeType: String) throws {
        let directory = try TemporaryStoreDirectory()
        let model = try Self.model(in: directory)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let url = storeType == NSSQLiteStoreType ? directory.url.appendingPathComponent("Shelves.sqlite") : nil
        try coordinator.addPersistentStore(ofType: storeType, configurationName: nil, at: url, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let shelves = ["A", "B"].map { name -> NSManagedObject in
                let shelf = NSEntityDescription.insertNewObject(forEntityName: "Shelf", into: context)
                shelf.setValue(name, forKey: "name")
                return shelf
            }
            for (name, price, shelf) in [("pen", 1.5, 0), ("pencil", 4.0, 0), ("cup", 4.0, 0), ("paper", 2.0, 0), ("pepper", 9.0, 1), ("bowl", 3.0, 1)] {
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
                item.setValue(name, forKey: "name")
                item.setValue(price, forKey: "price")
                item.setValue(shelves[shelf], forKey: "shelf")
            }
            try context.save()

            let property = try #require(model.entitiesByName["Shelf"]?.propertiesByName["matchingItems"])
            #expect(property.value(forKeyPath: "userInfo.search") as? String == "PE")

            func names(_ value: Any?) -> [String] {
                ((value as? [Any]) ?? []).compactMap { ($0 as? NSManagedObject)?.value(forKey: "name") as? String }
            }
            // Items of the shelf whose name contains "pe", case-insensitively (the search string is the property's).
            #expect(Set(names(shelves[0].value(forKey: "matchingItems"))) == ["pen", "pencil", "paper"])
            #expect(names(shelves[1].value(forKey: "matchingItems")) == ["pepper"])
            // In the order of the request's sort descriptors: price descending, then name.
            #expect(names(shelves[0].value(forKey: "itemsByPrice")) == ["cup", "pencil", "paper", "pen"])
            #expect(names(shelves[1].value(forKey: "itemsByPrice")) == ["pepper", "bowl"])
            let sorted = try #require(model.entitiesByName["Shelf"]?.propertiesByName["itemsByPrice"] as? NSFetchedPropertyDescription)
            #expect(sorted.fetchRequest?.sortDescriptors?.map(\.key) == ["price", "name"])
        }
    }
}
