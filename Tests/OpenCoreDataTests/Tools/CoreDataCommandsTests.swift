import Foundation
import Testing

@testable import OpenCoreData

/// `coredata model show/diff/codegen` and `coredata store info/query/schema/migrate/check`, run as subprocesses on
/// copies of corpus models and stores; expectations come from the corpus files read by hand (raw SQL) or are
/// written out from the models.
@Suite("coredata model and store commands", .enabled(if: CoreDataTool.executable != nil, "the coredata executable is not built next to the test bundle: tool tests skipped"))
struct CoreDataCommandsTests {
    /// `Moody.xcdatamodeld` with the app's six versions (current: Moody 6), in a new temporary folder.
    static func moodyPackage() throws -> URL {
        let package = try TemporaryDirectory.make().appendingPathComponent("Moody.xcdatamodeld")
        for version in 1...6 {
            let folder = package.appendingPathComponent((version == 1 ? "Moody" : "Moody \(version)") + ".xcdatamodel")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: Corpus.models.appendingPathComponent("objcio__core-data__Moody__Migrations-Moody_\(version).xml"),
                                             to: folder.appendingPathComponent("contents"))
        }
        try FileManager.default.copyItem(at: Corpus.models.appendingPathComponent("objcio__core-data__Moody__Migrations-xccurrentversion.plist"),
                                         to: package.appendingPathComponent(".xccurrentversion"))
        return package
    }

    static func succeeds(_ arguments: [String]) throws -> String {
        let result = try CoreDataTool.run(arguments)
        #expect(result.status == 0, "coredata \(arguments.joined(separator: " ")): \(result.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        return result.stdout
    }

    @Test(.enabled(if: Corpus.isAvailable, Corpus.missingMessage))
    func modelShowListsVersionsAndEntities() throws {
        let package = try Self.moodyPackage()
        let output = try Self.succeeds(["model", "show", package.path])
        let model = try NSManagedObjectModel(validatingContentsOf: package, versionName: "Moody 6")
        #expect(output.contains("version Moody 6 (current): checksum \(model.versionChecksum)"))
        #expect(output.contains("version Moody 2: checksum "))
        #expect(output.contains("Entity Country (class NSManagedObject)\n  version hash: \(model.entitiesByName["Country"]!.versionHash.base64EncodedString())"))
        #expect(output.contains("  unique: numericISO3166Code, uniquenessDummy"))
        #expect(output.contains("  relationship continent → Continent (to-one, optional, inverse countries, nullify)"))
        #expect(output.contains("  attribute isoContinent") == false, "version 6 has no isoContinent")
    }

    @Test(.enabled(if: Corpus.isAvailable, Corpus.missingMessage))
    func modelDiffSaysWhatChangedAndWhetherItCanBeInferred() throws {
        let package = try Self.moodyPackage()
        let five = package.appendingPathComponent("Moody 5.xcdatamodel").path, six = package.appendingPathComponent("Moody 6.xcdatamodel").path
        let output = try Self.succeeds(["model", "diff", five, six])
        // Version 6 adds Continent and Country.continent and drops Country.isoContinent (the corpus models).
        #expect(output == """
            + entity Continent
            + Country.continent: relationship continent → Continent (to-one, optional, inverse countries, nullify)
            - Country.isoContinent

            Lightweight migration: yes (an inferred mapping with 3 entity mappings, 2 not plain copies)

            """)
        let one = package.appendingPathComponent("Moody.xcdatamodel").path, two = package.appendingPathComponent("Moody 2.xcdatamodel").path
        let rename = try Self.succeeds(["model", "diff", one, two])
        #expect(rename.contains("~ Mood.remoteIdentifier renamed to remoteID\n"))
        #expect(rename.contains("+ Mood.rating: attribute rating: Integer 16 (default 0)\n"))
        #expect(try Self.succeeds(["model", "diff", six, six]).hasPrefix("No changes"))
        // A change inference refuses: a string attribute becomes a date.
        let folder = try TemporaryDirectory.make().appendingPathComponent("Dated.xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let contents = try String(contentsOf: URL(fileURLWithPath: six).appendingPathComponent("contents"), encoding: .utf8)
            .replacingOccurrences(of: #"<attribute name="creatorID" optional="YES" attributeType="String""#, with: #"<attribute name="creatorID" optional="YES" attributeType="Date""#)
        try Data(contents.utf8).write(to: folder.appendingPathComponent("contents"))
        let refused = try Self.succeeds(["model", "diff", six, folder.path])
        #expect(refused.contains("Lightweight migration: no — cannot infer the conversion of Mood.creatorID"))
    }

    @Test(.enabled(if: Corpus.isAvailable, Corpus.missingMessage))
    func storeInfoNamesTheVersionAndCountsRows() throws {
        let store = try Corpus.storeCopy("objcio__core-data__Moody_5.moody")
        let raw = try RawDatabase(path: store.path)
        let moods = try raw.rows("SELECT COUNT(*) FROM ZMOOD")[0][0].integer ?? -1
        let countries = try raw.rows("SELECT COUNT(*) FROM ZCOUNTRY")[0][0].integer ?? -1
        let uuid = try raw.rows("SELECT Z_UUID FROM Z_METADATA")[0][0].string ?? "?"
        let output = try Self.succeeds(["store", "info", store.path, "--model", Self.moodyPackage().path])
        #expect(output.contains("  UUID: \(uuid)\n"))
        #expect(output.contains("  written by Core Data framework version 637\n"))
        #expect(output.contains("Model: version \"Moody 5\" of "))
        #expect(output.contains("  Mood: \(moods)\n") && output.contains("  Country: \(countries)\n"))
        // Without --model the store's own model cache is used.
        #expect(try Self.succeeds(["store", "info", store.path]).contains("Model: the store's model cache"))
    }

    @Test(.enabled(if: Corpus.isAvailable, Corpus.missingMessage))
    func storeQueryRunsARealFetch() throws {
        let store = try Corpus.storeCopy("objcio__core-data__Moody_5.moody")
        let package = try Self.moodyPackage().path
        let raw = try RawDatabase(path: store.path)
        let newest = try raw.rows("SELECT Z_PK FROM ZMOOD ORDER BY ZDATE DESC LIMIT 2").map { "Mood/p\($0[0])" }
        let table = try Self.succeeds(["store", "query", store.path, "--model", package, "--entity", "Mood", "--sort", "-date", "--limit", "2"])
        let lines = table.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("id ") == true && lines.first?.contains("rating") == true)
        #expect(lines.dropFirst(2).prefix(2).map { String($0.prefix { $0 != " " }) } == newest)
        #expect(lines.last == "(2 objects)")

        let southAfrica = try raw.rows("SELECT COUNT(*) FROM ZMOOD m JOIN ZCOUNTRY c ON m.ZCOUNTRY = c.Z_PK WHERE c.ZNUMERICISO3166CODE = 710")[0][0].integer ?? -1
        let json = try Self.succeeds(["store", "query", store.path, "--model", package, "--entity", "Mood", "--predicate", "country.numericISO3166Code == 710", "--format", "json"])
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        #expect(objects.count == southAfrica)
        #expect(objects.allSatisfy { ($0["rating"] as? NSNumber) != nil && ($0["markedForRemoteDeletion"] as? Bool) != nil && ($0["country"] as? String)?.hasPrefix("Country/p") == true })

        let csv = try Self.succeeds(["store", "query", store.path, "--model", package, "--entity", "Country", "--format", "csv"])
        let rows = csv.split(separator: "\n")
        #expect(rows.first == "id,isoContinent,markedForDeletionDate,moods,numberOfMoods,numericISO3166Code,uniquenessDummy,updatedAt")
        #expect(rows.count == 1 + (try raw.rows("SELECT COUNT(*) FROM ZCOUNTRY")[0][0].integer ?? -1))
    }

    @Test func storeSchemaIsTheSQLOfANewStore() throws {
        let package = try #require(Bundle.module.url(forResource: "Library", withExtension: "xcdatamodeld"))
        let output = try Self.succeeds(["store", "schema", package.path])
        let fresh = try TemporaryDirectory.make().appendingPathComponent("Fresh.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel(validatingContentsOf: package))
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: fresh, options: nil)
        try coordinator.remove(coordinator.persistentStores[0])
        let expected = try RawDatabase(path: fresh.path).rows("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid").compactMap { $0[0].string.map { $0 + ";" } }
        #expect(output.split(separator: "\n").map(String.init) == expected)
        #expect(output.contains("CREATE TABLE ZBOOK ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER"))
    }

    @Test(.enabled(if: Corpus.isAvailable, Corpus.missingMessage))
    func storeMigrateMovesAStoreToTheCurrentVersion() throws {
        let package = try Self.moodyPackage()
        let store = try Corpus.storeCopy("objcio__core-data__Moody_2.moody")
        let before = try LightweightMigrationTests.dump(store)
        let dryRun = try Self.succeeds(["store", "migrate", store.path, "--model", package.path, "--dry-run"])
        #expect(dryRun.contains("Migrating from version \"Moody 2\" to \"Moody 6\""))
        #expect(dryRun.contains("  GeographicRegionToRemove: remove"))
        #expect(try LightweightMigrationTests.dump(store) == before, "a dry run changes nothing")
        let output = try Self.succeeds(["store", "migrate", store.path, "--model", package.path])
        #expect(output.contains("Migrated \(store.path) in "))
        let six = try NSManagedObjectModel(validatingContentsOf: package, versionName: "Moody 6")
        #expect(six.isConfiguration(withName: nil, compatibleWithStoreMetadata: try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: store)))
        #expect(try Self.succeeds(["store", "migrate", store.path, "--model", package.path]).contains("already at the model's current version"))
        #expect(try Self.succeeds(["store", "check", store.path, "--model", package.path]).hasSuffix("No problems found.\n"))
    }

    @Test(.enabled(if: Corpus.isAvailable, Corpus.missingMessage))
    func storeMigrateUsesTheModelTheStoreCarriesWhenNoVersionWroteIt() throws {
        let store = try Corpus.storeCopy("wireapp__wire-ios-data-model__store2-80-0.wiredatabase")
        let model = Corpus.models.appendingPathComponent("wireapp__wire-ios-data-model__zmessaging__zmessaging2.101.0.xml").path
        let before = try ModelCacheMigrationTests.rowCounts(store)
        let output = try Self.succeeds(["store", "migrate", store.path, "--model", model])
        #expect(output.contains("Migrating from the model the store carries (Z_MODELCACHE)"))
        #expect(try ModelCacheMigrationTests.rowCounts(store)["User"] == before["User"])
        #expect(try Self.succeeds(["store", "migrate", store.path, "--model", model]).contains("already at the model's current version"))
    }

    @Test(.enabled(if: Corpus.isAvailable, Corpus.missingMessage))
    func storeCheckReportsIntegrityAndModelConsistency() throws {
        let store = try Corpus.storeCopy("objcio__core-data__Moody_5.moody")
        let good = try Self.succeeds(["store", "check", store.path, "--model", Self.moodyPackage().path])
        #expect(good.contains("ok      SQLite integrity check: ok\n"))
        #expect(good.contains("ok      model: written by version \"Moody 5\""))
        #expect(good.hasSuffix("No problems found.\n"))
        let library = try #require(Bundle.module.url(forResource: "Library", withExtension: "xcdatamodeld"))
        let bad = try CoreDataTool.run(["store", "check", store.path, "--model", library.path])
        #expect(bad.status == 1)
        #expect(bad.stdout.contains("PROBLEM model: no version of \(library.path) wrote this store"))
    }

    @Test func codegenWritesXcodeStyleClassesThatCompileAndWork() throws {
        let output = try TemporaryDirectory.make()
        let result = try Self.succeeds(["model", "codegen", GalleryModel.package().path, "--output", output.path])
        #expect(result.contains("Wrote 8 files for 4 entities"))
        // The committed GeneratedGallery/ files are compiled into this test target: the tool must still write them.
        let committed = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("GeneratedGallery")
        let names = try FileManager.default.contentsOfDirectory(atPath: committed.path).sorted()
        #expect(try FileManager.default.contentsOfDirectory(atPath: output.path).sorted() == names)
        for name in names {
            #expect(try String(contentsOf: output.appendingPathComponent(name), encoding: .utf8) == String(contentsOf: committed.appendingPathComponent(name), encoding: .utf8), "\(name)")
        }
        // …and the generated classes work as Xcode's do.
        let model = try NSManagedObjectModel(validatingContentsOf: GalleryModel.package())
        NSManagedObjectModel.registerManagedObjectClasses([Gallery.self, Painting.self, Painter.self, Sculpture.self])
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let gallery = Gallery(context: context)
        gallery.name = "Uffizi"
        gallery.rooms = 101
        let venus = Painting(context: context), david = Sculpture(context: context)
        venus.title = "The Birth of Venus"
        venus.year = 1486
        venus.default = true
        david.title = "David"
        david.weight = 6000
        gallery.addToPaintings(venus)
        gallery.insertIntoPaintings(david, at: 0)
        let botticelli = Painter(context: context)
        botticelli.name = "Botticelli"
        botticelli.born = 1445
        venus.addToPainters(botticelli)
        try context.save()
        let request: NSFetchRequest<Painting> = Painting.fetchRequest()
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        #expect(try context.fetch(request).map { $0.title } == ["David", "The Birth of Venus"])
        #expect((gallery.paintings?.array as? [Painting])?.map(\.title) == ["David", "The Birth of Venus"])
        #expect(venus.gallery === gallery && (botticelli.paintings?.contains(venus) ?? false) && venus.default == true && david.weight == 6000)
        #expect(venus.price == Decimal(0) && gallery.city == nil && botticelli.website == nil, "the model's default price is 0.0")
    }

    @Test("bad input: one line on stderr naming the problem, a non-zero exit status",
          arguments: ["show-missing", "info-missing", "info-not-a-store", "query-unknown-entity", "query-bad-predicate", "query-negative-limit",
                      "check-not-a-store", "migrate-no-version", "codegen-missing", "diff-missing", "schema-not-a-model"])
    func badInput(_ kind: String) throws {
        let directory = try TemporaryDirectory.make()
        let noise = directory.appendingPathComponent("noise.sqlite")
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }).write(to: noise)
        let library = try #require(Bundle.module.url(forResource: "Library", withExtension: "xcdatamodeld")).path
        let store = directory.appendingPathComponent("Library.sqlite")
        let coordinator = try NSPersistentStoreCoordinator(managedObjectModel: NSManagedObjectModel(validatingContentsOf: URL(fileURLWithPath: library), versionName: "Library"))
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: store, options: nil)
        try coordinator.remove(coordinator.persistentStores[0])
        if kind == "migrate-no-version" {
            // Without a model of its own, a store no version of the model wrote cannot be migrated.
            let connection = try SQLiteConnection(path: store.path)
            try connection.execute("DELETE FROM Z_MODELCACHE")
            connection.close()
        }
        let missing = directory.appendingPathComponent("none").path
        let gallery = try GalleryModel.package().path
        let cases: [String: (arguments: [String], fragment: String)] = [
            "show-missing": (["model", "show", missing], "No such model"),
            "info-missing": (["store", "info", missing], "No store file"),
            "info-not-a-store": (["store", "info", noise.path], "not an SQLite database"),
            "query-unknown-entity": (["store", "query", store.path, "--model", library, "--entity", "Unicorn"], "No entity named 'Unicorn'"),
            "query-bad-predicate": (["store", "query", store.path, "--model", library, "--entity", "Book", "--predicate", "title == "], "Invalid predicate"),
            "query-negative-limit": (["store", "query", store.path, "--model", library, "--entity", "Book", "--limit=-3"], "--limit must not be negative"),
            "check-not-a-store": (["store", "check", noise.path], "not an SQLite database"),
            "migrate-no-version": (["store", "migrate", store.path, "--model", gallery], "No version of"),
            "codegen-missing": (["model", "codegen", missing, "--output", directory.path], "No such model"),
            "diff-missing": (["model", "diff", missing, library], "No such model"),
            "schema-not-a-model": (["store", "schema", noise.path], "Cannot load the model"),
        ]
        let (arguments, fragment) = try #require(cases[kind])
        let result = try CoreDataTool.run(arguments)
        #expect(result.status != 0)
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: true)
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(result.stderr.contains(fragment), "\(result.stderr)")
        #expect(!result.stderr.contains("Domain="), "an NSError dump instead of a message")
    }
}
