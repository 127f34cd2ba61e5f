import Foundation
import Testing

@testable import OpenCoreData

/// Every Apple-written store of the corpus whose model is an XML file opens read-only through
/// `NSSQLiteStoreType`, and every row of every entity, fetched with `NSFetchRequest`, has the attribute values
/// and relationships that an independent reader (`RawStoreReader`: SQLite C API + hand decoding per
/// store-format.md) finds in the file — WAL included.
///
/// Scope: the 23 stores of `stores/INDEX.tsv` paired with an XML model. CoreDataPlus SampleModel2 V1/V2 (model
/// built in code) and Apple's Recipes seed store (whose XML was re-saved by a newer Xcode, so that only the store's
/// own `Z_MODELCACHE` reproduces its hashes) are read with the model from their cache by
/// `CorpusCachedModelStoreReadTests`. Left out: the two CoreDataBooks stores and MagicalRecord's Recipes (Xcode 3
/// binary models, no model cache).
///
/// Transformable attributes: the corpus's transformable values all use custom transformers that are app code
/// (Moody's `ColorsTransformer`). The test points those attributes at a pass-through transformer registered under
/// a test-only name, so the library hands back the stored bytes, which are compared with the raw blob; the
/// transformers' object mapping is not part of this test.
@Suite("Corpus: Apple-written stores read through NSSQLiteStoreType", .enabled(if: Corpus.isAvailable, Corpus.missingMessage))
struct CorpusStoreReadTests {
    /// The stores whose XML model in the corpus is not the model that wrote them (see the suite's comment).
    static let needsCompiledModel: Set<String> = ["alhoqbani__AppleSample-iPhoneCoreDataRecipes__Recipes.sqlite"]

    /// A pass-through transformer for transformable attributes (the base class returns values unchanged).
    static let rawTransformerName = NSValueTransformerName(rawValue: "OpenCoreDataTests.CorpusRawBytes")

    /// INDEX.tsv rows of the stores this suite reads: (store file, model file).
    static func xmlStores() throws -> [(store: String, model: String)] {
        try Corpus.index(Corpus.stores)
            .filter { ($0["model_file"] ?? "").hasSuffix(".xml") && !needsCompiledModel.contains($0["filename"] ?? "") }
            .map { ($0["filename"] ?? "", $0["model_file"] ?? "") }
    }

    /// Loads a corpus model for reading a store: transformable attributes use the pass-through transformer.
    static func readingModel(_ modelFile: String) throws -> NSManagedObjectModel {
        ValueTransformer.setValueTransformer(ValueTransformer(), forName: rawTransformerName)
        let model = try Corpus.model(modelFile)
        for entity in model.entities {
            for case let attribute as NSAttributeDescription in entity.properties
            where attribute.entity === entity && attribute.attributeType == .transformableAttributeType {
                attribute.valueTransformerName = rawTransformerName.rawValue
            }
        }
        return model
    }

    /// A writable copy of a corpus store with its -wal/-shm (as an app's own store would be).
    static func storeCopy(_ fileName: String) throws -> URL {
        let url = try Corpus.storeCopy(fileName)
        for suffix in ["", "-wal", "-shm"] {
            let path = url.path + suffix
            if FileManager.default.fileExists(atPath: path) {
                try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
            }
        }
        return url
    }

    /// Opens a store read-only through the library; the private-queue context keeps its coordinator.
    static func open(_ url: URL, model: NSManagedObjectModel) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: [NSReadOnlyPersistentStoreOption: true])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    struct Totals {
        var stores = 0, entities = 0, rows = 0, values = 0, toOneLinks = 0, toManyRelationships = 0, toManyMembers = 0
        var orderedToMany = 0, manyToMany = 0
        var transformedValues = 0, externalReferences = 0
    }

    // MARK: - Every row of every store

    @Test("every row, value and relationship of the 23 XML-model stores matches the raw reader")
    func everyStoreMatchesTheRawReader() throws {
        let stores = try Self.xmlStores()
        #expect(stores.count == 23, "INDEX.tsv should pair 23 readable stores with XML models, found \(stores.count)")
        var totals = Totals()
        var notes: [String] = []
        for (store, modelFile) in stores {
            let before = totals
            do {
                try Self.compare(store: store, modelFile: modelFile, totals: &totals, notes: &notes)
            } catch {
                Issue.record("\(store): \(error)")
            }
            print("corpus read: \(store): \(totals.entities - before.entities) entities, \(totals.rows - before.rows) rows, \(totals.values - before.values) values, \(totals.toOneLinks - before.toOneLinks) to-one, \(totals.toManyRelationships - before.toManyRelationships) to-many (\(totals.toManyMembers - before.toManyMembers) members)")
        }
        for note in Set(notes).sorted() { print("corpus read note: \(note)") }
        print("""
            corpus read: compared \(totals.stores) stores, \(totals.entities) entities, \(totals.rows) rows, \(totals.values) attribute values \
            (\(totals.transformedValues) transformable at byte level, \(totals.externalReferences) external-storage references), \
            \(totals.toOneLinks) to-one relationships, \(totals.toManyRelationships) to-many relationships with \(totals.toManyMembers) members \
            (\(totals.orderedToMany) ordered, \(totals.manyToMany) many-to-many)
            """)
    }

    /// Compares one store; issues are recorded, not thrown, so one bad entity does not hide the others.
    static func compare(store: String, modelFile: String, totals: inout Totals, notes: inout [String]) throws {
        try compare(store: store, model: readingModel(modelFile), url: storeCopy(store), totals: &totals, notes: &notes)
    }

    /// Compares one store copy at `url` read with `model`.
    static func compare(store: String, model: NSManagedObjectModel, url: URL, totals: inout Totals, notes: inout [String]) throws {
        let raw = try RawStoreReader(url: url, model: model)
        // The corpus holds the store files only, not their `_EXTERNAL_DATA` folders: each referenced file is put
        // in place with known bytes, which the library must then return for that value.
        for name in try raw.externalReferences() {
            let file = RawStoreReader.externalFile(name, store: url)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Self.externalPlaceholder(name).write(to: file)
        }
        defer {
            for problem in raw.problems { Issue.record("\(store): raw reader: \(problem)") }
            notes += raw.notes.map { "\(store): \($0)" }
            notes += raw.suffixedColumns.map { "\(store): collision suffix \($0)" }
        }

        let context: NSManagedObjectContext
        do {
            context = try open(url, model: model)
        } catch {
            Issue.record("\(store) cannot be opened read-only: \(error)")
            return
        }
        totals.stores += 1
        // Mismatches are grouped by what differs (entity, property, kind), one issue per group with its count.
        var groups: [(key: String, count: Int, example: String)] = []
        func mismatch(_ key: String, _ example: String) {
            if let index = groups.firstIndex(where: { $0.key == key }) {
                groups[index].count += 1
            } else {
                groups.append((key, 1, example))
            }
        }
        let ordered = RawStoreReader.expectedNumbering(model)
        context.performAndWait {
            for entity in ordered {
                let name = entity.name ?? ""
                let expectedRows: [RawRow]
                do {
                    expectedRows = try raw.rows(of: entity)
                } catch {
                    mismatch("raw reader failed on \(name)", "\(error)")
                    continue
                }
                for row in expectedRows {
                    for (attributeName, value) in row.attributes.sorted(by: { $0.key < $1.key }) {
                        guard case .externalReference(let file) = value else { continue }
                        totals.externalReferences += 1
                        notes.append("\(store): \(name).\(attributeName) p\(row.primaryKey): external-storage reference \(file) (not in the corpus: compared with a placeholder file)")
                    }
                }
                let request = NSFetchRequest<NSManagedObject>(entityName: name)
                request.includesSubentities = false
                let objects: [NSManagedObject]
                do {
                    objects = try context.fetch(request)
                } catch {
                    mismatch("fetching \(name) failed", "\(error)")
                    continue
                }
                totals.entities += 1
                if objects.count != expectedRows.count {
                    mismatch("\(name): object count", "fetched \(objects.count) objects, the file has \(expectedRows.count) rows")
                }
                if !entity.subentities.isEmpty {
                    let all = NSFetchRequest<NSManagedObject>(entityName: name)
                    let count = (try? context.count(for: all)) ?? -1
                    let expected = RawStoreReader.kinds(of: entity).map { raw.rowCount(of: $0) }.reduce(0, +)
                    if count != expected { mismatch("\(name) with sub-entities: count", "\(count), the file has \(expected)") }
                }
                var byKey: [Int64: NSManagedObject] = [:]
                for object in objects {
                    let uri = object.objectID.uriRepresentation()
                    guard let ref = Self.ref(uri), uri.host == raw.storeUUID else {
                        mismatch("\(name): object URI", "unexpected \(uri)")
                        continue
                    }
                    if ref.entity != name { mismatch("\(name): fetched objects of another entity", "\(uri)") }
                    byKey[ref.primaryKey] = object
                }
                for row in expectedRows {
                    guard let object = byKey[row.primaryKey] else {
                        mismatch("\(name): rows not fetched", "p\(row.primaryKey)")
                        continue
                    }
                    totals.rows += 1
                    for (attributeName, expected) in row.attributes.sorted(by: { $0.key < $1.key }) {
                        let actual = object.value(forKey: attributeName)
                        totals.values += 1
                        if case .transformed = expected { totals.transformedValues += 1 }
                        if !Self.matches(expected, actual) {
                            mismatch("\(name).\(attributeName) differs", "p\(row.primaryKey): library \(Self.describe(actual)), file \(expected)")
                        }
                    }
                    for (relationshipName, expected) in row.toOne.sorted(by: { $0.key < $1.key }) {
                        totals.toOneLinks += 1
                        let actual = (object.value(forKey: relationshipName) as? NSManagedObject).flatMap { Self.ref($0.objectID.uriRepresentation()) }
                        if actual != expected {
                            mismatch("\(name).\(relationshipName) (to-one) differs", "p\(row.primaryKey): library \(actual.map(\.description) ?? "nil"), file \(expected.map(\.description) ?? "nil")")
                        }
                    }
                    for (relationshipName, expected) in row.toMany.sorted(by: { $0.key < $1.key }) {
                        totals.toManyRelationships += 1
                        totals.toManyMembers += expected.count
                        guard let relationship = entity.relationshipsByName[relationshipName] else { continue }
                        if relationship.isOrdered { totals.orderedToMany += 1 }
                        if relationship.inverseRelationship?.isToMany == true { totals.manyToMany += 1 }
                        if let error = Self.toManyFaultError(object, relationship) {
                            mismatch("\(name).\(relationshipName): the store cannot fulfil the to-many fault (value(forKey:) would stop the program)", "p\(row.primaryKey): \(error)")
                            continue
                        }
                        let value = object.value(forKey: relationshipName)
                        let members: [RawObjectRef]
                        if relationship.isOrdered {
                            guard let set = value as? NSOrderedSet else {
                                mismatch("\(name).\(relationshipName): ordered to-many is not an NSOrderedSet", "p\(row.primaryKey): \(Self.describe(value))")
                                continue
                            }
                            members = set.array.compactMap { ($0 as? NSManagedObject).flatMap { Self.ref($0.objectID.uriRepresentation()) } }
                            if members != expected {
                                mismatch("\(name).\(relationshipName) (ordered to-many) differs", "p\(row.primaryKey): library \(members), file \(expected)")
                            }
                        } else {
                            guard let set = value as? NSSet else {
                                mismatch("\(name).\(relationshipName): to-many is not an NSSet", "p\(row.primaryKey): \(Self.describe(value))")
                                continue
                            }
                            members = set.allObjects.compactMap { ($0 as? NSManagedObject).flatMap { Self.ref($0.objectID.uriRepresentation()) } }
                            if Set(members) != Set(expected) || members.count != expected.count {
                                mismatch("\(name).\(relationshipName) (to-many) differs", "p\(row.primaryKey): library \(members.sorted { $0.primaryKey < $1.primaryKey }), file \(expected)")
                            }
                        }
                    }
                }
            }
            context.reset()
        }
        for group in groups {
            Issue.record("\(store): \(group.key)\(group.count > 1 ? " (\(group.count) times)" : ""): \(group.example)")
        }
    }

    /// The library stops the program when a to-many fault cannot be fulfilled (Apple raises there too). This asks
    /// the store first, the way the context does, so that a relationship the store cannot read fails the test
    /// with the store's error instead of ending the test run.
    static func toManyFaultError(_ object: NSManagedObject, _ relationship: NSRelationshipDescription) -> Error? {
        guard let coordinator = object.managedObjectContext?.persistentStoreCoordinator, let store = coordinator.store(for: object.objectID) else { return nil }
        do {
            _ = try coordinator.withLock { try store.relatedObjectIDs(of: object.objectID, through: relationship, requestContext: .unattributed) }
            return nil
        } catch {
            return error
        }
    }

    /// Entity name and primary key from `x-coredata://<UUID>/<Entity>/p<pk>`.
    static func ref(_ uri: URL) -> RawObjectRef? {
        let parts = uri.path.split(separator: "/")
        guard parts.count == 2, parts[1].hasPrefix("p"), let key = Int64(parts[1].dropFirst()) else { return nil }
        return RawObjectRef(entity: String(parts[0]).removingPercentEncoding ?? String(parts[0]), primaryKey: key)
    }

    /// The bytes the test puts in the external-storage file `name`.
    static func externalPlaceholder(_ name: String) -> Data { Data("OpenCoreDataTests external data \(name)".utf8) }

    static func describe(_ value: Any?) -> String {
        guard let value else { return "nil" }
        if let date = value as? Date { return "date \(date.timeIntervalSinceReferenceDate) (Date)" }
        return "\(value) (\(type(of: value)))"
    }

    /// Whether a `value(forKey:)` result is the hand-decoded value, with Apple's KVC types.
    static func matches(_ expected: ExpectedValue, _ actual: Any?) -> Bool {
        switch expected {
        case .null: return actual == nil
        case .integer(let value): return (actual as? NSNumber)?.int64Value == value
        case .boolean(let value): return (actual as? NSNumber).map { $0.boolValue == value && ($0.int64Value == 0 || $0.int64Value == 1) } ?? false
        case .double(let value): return (actual as? NSNumber)?.doubleValue == value
        case .float(let value): return (actual as? NSNumber)?.floatValue == value
        // The file holds the decimal as a REAL; its shortest decimal text is the value (Linux's
        // NSDecimalNumber.doubleValue is not exact, so comparing doubles would fail on 3.3333333332999993).
        case .decimal(let text): return (actual as? NSDecimalNumber).map { $0.doubleValue == Double(text) || $0.decimalValue == Decimal(string: text) } ?? false
        case .string(let value): return (actual as? String) == value
        case .date(let seconds): return (actual as? Date)?.timeIntervalSinceReferenceDate == seconds
        case .data(let data), .transformed(let data): return (actual as? Data) == data
        case .uuid(let uuid): return (actual as? UUID) == uuid
        case .url(let text): return (actual as? URL)?.absoluteString == text
        case .externalReference(let name): return (actual as? Data) == externalPlaceholder(name)
        case .undecodable: return false
        }
    }

    // MARK: - Values checked by hand

    /// Runs `body` on the queue of a context reading a copy of a corpus store (read-only).
    static func withStore<T>(_ store: String, model modelFile: String, _ body: (NSManagedObjectContext) throws -> T) throws -> T {
        let model = try readingModel(modelFile)
        let context = try open(try storeCopy(store), model: model)
        var result: Result<T, Error>!
        context.performAndWait { result = Result { try body(context) } }
        return try result.get()
    }

    /// The objects of an entity and its sub-entities, optionally filtered.
    static func fetch(_ entity: String, _ context: NSManagedObjectContext, _ format: String? = nil) throws -> [NSManagedObject] {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        if let format { request.predicate = NSPredicate(format: format) }
        return try context.fetch(request)
    }

    static func titles(_ value: Any?) -> [String] {
        ((value as? NSOrderedSet)?.array ?? []).map { ($0 as? NSManagedObject)?.value(forKey: "title") as? String ?? "?" }
    }

    /// DuckDuckGo's bookmark fixtures keep all their rows in the WAL (the main file alone has none): the same
    /// tree in every model version — folders `bookmarks_root` and `favorites_root`, bookmarks "1"…"5" with
    /// folder "3" holding "31"…"33", and favorites in the order 5, 4, 33, 32, 2 (through the to-one
    /// `favoriteFolder` + `Z_FOK_FAVORITEFOLDER` in V1–V3, the self-referential ordered many-to-many
    /// `Z_1FAVORITES` in V4–V5).
    @Test("DuckDuckGo bookmarks (data only in the WAL): titles, tree order and favorites by hand", arguments: 1...5)
    func duckDuckGoBookmarks(version: Int) throws {
        let model = version == 1 ? "duckduckgo__BrowserServicesKit__BookmarksModel__BookmarksModel.xml" : "duckduckgo__BrowserServicesKit__BookmarksModel__BookmarksModel_\(version).xml"
        let store = "duckduckgo__BrowserServicesKit__Bookmarks_V\(version).sqlite"
        // The main database file alone has no rows: everything below comes from the WAL.
        let mainOnly = try TemporaryDirectory.make().appendingPathComponent("main-only.sqlite")
        try FileManager.default.copyItem(at: Corpus.stores.appendingPathComponent(store), to: mainOnly)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: mainOnly.path)
        #expect(try RawDatabase(path: mainOnly.path).rows("SELECT COUNT(*) FROM ZBOOKMARKENTITY").first?.first == .integer(0))

        try Self.withStore(store, model: model) { context in
            let all = try Self.fetch("BookmarkEntity", context)
            #expect(all.count == 10)
            #expect(Set(all.compactMap { $0.value(forKey: "title") as? String }) == ["bookmarks_root", "favorites_root", "1", "2", "3", "4", "5", "31", "32", "33"])
            let byTitle = Dictionary(all.map { ($0.value(forKey: "title") as? String ?? "", $0) }, uniquingKeysWith: { first, _ in first })
            let root = try #require(byTitle["bookmarks_root"])
            #expect(root.value(forKey: "isFolder") as? NSNumber == NSNumber(value: true))
            #expect(root.value(forKey: "parent") == nil)
            #expect(root.value(forKey: "uuid") as? String == "bookmarks_root")
            #expect(Self.titles(root.value(forKey: "children")) == ["1", "2", "3", "4", "5"])
            let folder = try #require(byTitle["3"])
            #expect(folder.value(forKey: "isFolder") as? NSNumber == NSNumber(value: true))
            #expect(folder.value(forKey: "url") == nil)
            #expect(Self.titles(folder.value(forKey: "children")) == ["31", "32", "33"])
            #expect((byTitle["31"]?.value(forKey: "parent") as? NSManagedObject) === folder)
            #expect(byTitle["4"]?.value(forKey: "url") as? String == "4")
            let favorites = try #require(byTitle["favorites_root"])
            #expect(Self.titles(favorites.value(forKey: "favorites")) == ["5", "4", "33", "32", "2"])
            if version >= 4 {
                // Many-to-many inverse: each favorite lists the favorites folder.
                let folders = byTitle["33"]?.value(forKey: "favoriteFolders") as? NSSet
                #expect(folders?.allObjects.compactMap { $0 as? NSManagedObject }.map { $0 === favorites } == [true])
            } else {
                #expect((byTitle["33"]?.value(forKey: "favoriteFolder") as? NSManagedObject) === favorites)
            }
            // Bookmark "1"'s modifiedAt (seconds since 2001, REAL in the file) in V3, V4, V5.
            let modifiedAt: [Int: Double] = [3: 722_787_770.189304, 4: 723_485_158.135943, 5: 731_947_175.405015]
            if let seconds = modifiedAt[version] {
                #expect((byTitle["1"]?.value(forKey: "modifiedAt") as? Date)?.timeIntervalSinceReferenceDate == seconds)
            }
        }
    }

    /// Moody v1 (fw 637): abstract `GeographicRegion` with `Continent` and `Country` in one table; Moody v5:
    /// leaf entities, the custom-transformed `colors` blob, and doubles/dates.
    @Test("Moody v1 inheritance and v5 values by hand")
    func moody() throws {
        try Self.withStore("objcio__core-data__Moody.moody", model: "objcio__core-data__Moody__Migrations-Moody_1.xml") { context in
            #expect(try Self.fetch("GeographicRegion", context).count == 5)
            let countries = try Self.fetch("Country", context)
            #expect(Set(countries.compactMap { ($0.value(forKey: "numericISO3166Code") as? NSNumber)?.intValue }) == [231, 704, 710])
            let southAfrica = try #require(countries.first { ($0.value(forKey: "numericISO3166Code") as? NSNumber)?.intValue == 710 })
            #expect(southAfrica.objectID.uriRepresentation().lastPathComponent == "p21")
            let continent = try #require(southAfrica.value(forKey: "continent") as? NSManagedObject)
            #expect(continent.entity.name == "Continent")
            #expect((continent.value(forKey: "numericISO3166Code") as? NSNumber)?.intValue == 10004)
            let members = (continent.value(forKey: "countries") as? NSSet)?.allObjects.compactMap { (($0 as? NSManagedObject)?.value(forKey: "numericISO3166Code") as? NSNumber)?.intValue }
            #expect(Set(members ?? []) == [231, 710])
            #expect((continent.value(forKey: "updatedAt") as? Date)?.timeIntervalSinceReferenceDate == 464_687_061.663903)
        }
        try Self.withStore("objcio__core-data__Moody_5.moody", model: "objcio__core-data__Moody__Migrations-Moody_5.xml") { context in
            let moods = try Self.fetch("Mood", context)
            #expect(moods.count == 4)
            let first = try #require(moods.first { $0.objectID.uriRepresentation().lastPathComponent == "p1" })
            #expect(first.value(forKey: "remoteID") as? String == "83922344-ED0B-4ABE-B8B0-E00F4E7E1D94")
            #expect(first.value(forKey: "creatorID") as? String == "__defaultOwner__")
            #expect((first.value(forKey: "latitude") as? NSNumber)?.doubleValue == 7.013668)
            #expect((first.value(forKey: "date") as? Date)?.timeIntervalSinceReferenceDate == 464_442_000.641578)
            #expect((first.value(forKey: "markedForRemoteDeletion") as? NSNumber)?.boolValue == false)
            #expect((first.value(forKey: "colors") as? Data)?.prefix(6) == Data([0xF1, 0xF3, 0xF8, 0x61, 0x5B, 0x43]))
            #expect((first.value(forKey: "colors") as? Data)?.count == 24)
            let country = try #require(first.value(forKey: "country") as? NSManagedObject)
            #expect((country.value(forKey: "numericISO3166Code") as? NSNumber)?.intValue == 231)
            let southAfrica = try #require(try Self.fetch("Country", context, "numericISO3166Code == 710").first)
            #expect((southAfrica.value(forKey: "moods") as? NSSet)?.count == 2)
        }
    }

    /// CoreDataPlus SampleModel (fw 1044): UUID blobs (store-format §4's `FEFE4176912D…` example) and dates.
    @Test("CoreDataPlus people and Passepartout profiles by hand")
    func uuidsAndDates() throws {
        try Self.withStore("alemar11__CoreDataPlus__SampleModel_V1.sqlite", model: "alemar11__CoreDataPlus__SampleModel__SampleModel.xml") { context in
            let people = try Self.fetch("Person", context, "firstName == 'Victoria' AND lastName == 'Coster'")
            #expect(people.count == 1)
            #expect(people.first?.value(forKey: "id") as? UUID == UUID(uuidString: "FEFE4176-912D-429F-9C83-662FFF641115"))
            #expect((people.first?.value(forKey: "updatedAt") as? Date)?.timeIntervalSinceReferenceDate == 639_503_569.638733)
            #expect(try Self.fetch("Car", context).count == 125)
        }
        try Self.withStore("passepartoutvpn__passepartout__Profiles.sqlite", model: "passepartoutvpn__passepartout__ProfilesLegacyV2__Profiles.xml") { context in
            let profiles = try Self.fetch("CDProfile", context)
            #expect(profiles.count == 9)
            let windscribe = profiles.filter { $0.value(forKey: "name") as? String == "Windscribe" }
            #expect(windscribe.count == 2)
            #expect(Set(windscribe.compactMap { $0.value(forKey: "uuid") as? UUID }) == [UUID(uuidString: "38208B87-0545-4B11-A762-D04ED7CB904F")!])
        }
    }

    /// Wire 2.101.0 (fw 1145, migrated): the self user through `Session.selfUser`, and `SystemMessage.users`,
    /// whose join table `Z_15USERS` names its member column `Z_23USERS1` (the `users` of `Reaction` holds
    /// `Z_23USERS` in `Z_19USERS`).
    @Test("Wire 2.101.0 self user and system-message users by hand")
    func wire() throws {
        try Self.withStore("wireapp__wire-ios-data-model__store2-101-0.wiredatabase", model: "wireapp__wire-ios-data-model__zmessaging__zmessaging2.101.0.xml") { context in
            let session = try #require(try Self.fetch("Session", context).first)
            let selfUser = try #require(session.value(forKey: "selfUser") as? NSManagedObject)
            #expect(selfUser.value(forKey: "name") as? String == "Jacob Clone 1")
            #expect(selfUser.value(forKey: "emailAddress") as? String == "393@example.com")
            let allUsers = try Self.fetch("User", context)
            #expect(allUsers.count == 22)
            #expect(allUsers.contains { $0.value(forKey: "name") as? String == "LordTilapia🐟" })
            let systemMessages = try Self.fetch("SystemMessage", context)
            #expect(systemMessages.count == 21)
            let users = try #require(systemMessages.first?.entity.relationshipsByName["users"])
            if let error = Self.toManyFaultError(systemMessages[0], users) {
                Issue.record("SystemMessage.users cannot be read: \(error)")
                return
            }
            let memberships = systemMessages.map { ($0.value(forKey: "users") as? NSSet)?.count ?? -1 }.reduce(0, +)
            #expect(memberships == 30, "Z_15USERS has 30 rows")
        }
    }

    /// Wire's fixtures reference external-storage files (`0x02` + UUID, §4) that their repository did not commit.
    /// A missing file concerns one value of one row; it must not make every `User` row unreadable. (What Apple
    /// returns for such a value is not established — store-format.md says nothing about it — so only the fetch
    /// is checked.)
    @Test("a missing external-storage file does not make the entity unreadable")
    func missingExternalFile() throws {
        try Self.withStore("wireapp__wire-ios-data-model__store2-24-1.wiredatabase", model: "wireapp__wire-ios-data-model__zmessaging__zmessaging2.24.1.xml") { context in
            let users = try Self.fetch("User", context)
            #expect(users.count == 22)
            let user = try #require(users.first { $0.objectID.uriRepresentation().lastPathComponent == "p1" })
            // The row's inline value is unaffected: 0x01 marker + 36 962 bytes of JPEG in the column.
            #expect((user.value(forKey: "imageSmallProfileData") as? Data)?.prefix(3) == Data([0xFF, 0xD8, 0xFF]))
            #expect((user.value(forKey: "imageSmallProfileData") as? Data)?.count == 36_962)
        }
    }

    /// The Recipes seed store is refused with its re-saved XML model (hashes differ: 134100), as Apple would.
    @Test("a store whose XML model does not match is refused with 134100")
    func mismatchedModelIsRefused() throws {
        let model = try Corpus.model("alhoqbani__AppleSample-iPhoneCoreDataRecipes__Recipes__Recipes.xml")
        let url = try Self.storeCopy("alhoqbani__AppleSample-iPhoneCoreDataRecipes__Recipes.sqlite")
        #expect {
            _ = try Self.open(url, model: model)
        } throws: { error in
            (error as NSError).code == NSPersistentStoreIncompatibleVersionHashError
        }
    }
}
