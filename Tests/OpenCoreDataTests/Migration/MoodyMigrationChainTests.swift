import Foundation
import Testing

@testable import OpenCoreData

/// The objc.io Moody app's real migration history: its stores of model versions 1–5 migrate to version 6
/// through the chain the app shipped — an inferred mapping for 1 → 2 and the app's Xcode mapping models for
/// 2 → 3 … 5 → 6, the last with the book's custom policy that recreates continents from the countries' codes.
@Suite struct MoodyMigrationChainTests {
    /// The book's `Country5ToCountry6Policy`: after the default creation, the country gets the continent of its
    /// `isoContinent` code, found or created in the destination context.
    final class Country5ToCountry6Policy: NSEntityMigrationPolicy {
        override func createDestinationInstances(forSource sInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager) throws {
            try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
            guard let code = sInstance.value(forKey: "isoContinent") as? NSNumber else { return }
            guard let country = manager.destinationInstances(forEntityMappingName: mapping.name ?? "", sourceInstances: [sInstance]).first,
                let context = country.managedObjectContext
            else { throw CoreDataError.make(NSEntityMigrationPolicyError, "the country was not created") }
            let request = NSFetchRequest<NSManagedObject>(entityName: "Continent")
            request.predicate = NSPredicate(format: "numericISO3166Code == %@", code)
            let continent = try context.fetch(request).first ?? {
                let created = NSEntityDescription.insertNewObject(forEntityName: "Continent", into: context)
                created.setValue(code, forKey: "numericISO3166Code")
                return created
            }()
            country.setValue(continent, forKey: "continent")
        }
    }

    static let versionNames = ["Moody", "Moody 2", "Moody 3", "Moody 4", "Moody 5", "Moody 6"]

    /// `Migrations/Moody.xcdatamodeld` (versions 1–6) and `Migrations/MoodyN-MoodyN+1.xcmappingmodel` packages,
    /// laid out as in the app's repository (the mapping files name the models by these paths).
    static func migrationsFolder() throws -> URL {
        let folder = try TemporaryDirectory.make().appendingPathComponent("Migrations")
        let package = folder.appendingPathComponent("Moody.xcdatamodeld")
        for (index, name) in versionNames.enumerated() {
            let version = package.appendingPathComponent(name + ".xcdatamodel")
            try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: Corpus.models.appendingPathComponent("objcio__core-data__Moody__Migrations-Moody_\(index + 1).xml"),
                                             to: version.appendingPathComponent("contents"))
        }
        try FileManager.default.copyItem(at: Corpus.models.appendingPathComponent("objcio__core-data__Moody__Migrations-xccurrentversion.plist"),
                                         to: package.appendingPathComponent(".xccurrentversion"))
        for step in 2...5 {
            let mapping = folder.appendingPathComponent("Moody\(step)ToMoody\(step + 1).xcmappingmodel")
            try FileManager.default.createDirectory(at: mapping, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: Corpus.models.appendingPathComponent("objcio__core-data__Moody_\(step)-Moody_\(step + 1).xcmapping.xml"),
                                             to: mapping.appendingPathComponent("xcmapping.xml"))
        }
        return folder
    }

    /// Hand-written expectations of the app's four mapping models (read off Xcode's mapping editor contents).
    @Test func xcodeMappingModelsLoad() throws {
        try #require(Corpus.isAvailable, Corpus.missingMessage)
        let folder = try Self.migrationsFolder()
        func load(_ step: Int) throws -> NSMappingModel {
            try NSMappingModel(validatingContentsOf: folder.appendingPathComponent("Moody\(step)ToMoody\(step + 1).xcmappingmodel"))
        }
        func summary(_ mapping: NSMappingModel) -> [String] {
            (mapping.entityMappings ?? []).map { "\($0.name ?? "") \($0.sourceEntityName ?? "-")→\($0.destinationEntityName ?? "-") type \($0.mappingType.rawValue) policy \($0.entityMigrationPolicyClassName ?? "-")" }
        }
        func expression(_ mapping: NSMappingModel, _ entity: String, _ property: String) -> String? {
            let entityMapping = mapping.entityMappingsByName[entity]
            return ((entityMapping?.attributeMappings ?? []) + (entityMapping?.relationshipMappings ?? [])).first { $0.name == property }?.valueExpression?.description
        }
        let two = try load(2)
        #expect(summary(two) == ["MoodToMood Mood→Mood type 0 policy -", "CountryToCountry Country→Country type 0 policy -", "ContinentToContinent Continent→Continent type 0 policy -"])
        #expect(expression(two, "MoodToMood", "continent") == #"FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "ContinentToContinent", $source.country.continent)"#)
        #expect(expression(two, "MoodToMood", "country") == #"FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "CountryToCountry", $source.country)"#)
        #expect(expression(two, "ContinentToContinent", "moods") == #"FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "MoodToMood", $source.countries.@distinctUnionOfSets.moods)"#)
        #expect(expression(two, "MoodToMood", "rating") == "$source.rating")
        #expect(expression(two, "CountryToCountry", "continent") == #"FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "ContinentToContinent", $source.continent)"#)

        let three = try load(3)
        #expect(summary(three) == ["ContinentToContinent Continent→Continent type 0 policy -", "CountryToCountry Country→Country type 0 policy -", "MoodToMood Mood→Mood type 0 policy -"])
        #expect(expression(three, "CountryToCountry", "numericISO3166Code") == "$source.numericISO3166Code")

        let four = try load(4)
        #expect(summary(four) == ["MoodToMood Mood→Mood type 0 policy -", "CountryToCountry Country→Country type 0 policy -"])
        // The one explicit expression of the app: a keyed archive of Apple's expression classes.
        #expect(expression(four, "CountryToCountry", "isoContinent") == #"$source.continent.numericISO3166Code"#)

        let five = try load(5)
        #expect(summary(five) == ["Continent Continent type 0 policy -".replacingOccurrences(of: "Continent Continent", with: "Continent -→Continent"),
                                  "CountryToCountry Country→Country type 0 policy Migrations.Country5ToCountry6Policy", "MoodToMood Mood→Mood type 0 policy -"])
        #expect(expression(five, "CountryToCountry", "continent") == nil)
        #expect(expression(five, "CountryToCountry", "moods") == #"FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "MoodToMood", $source.moods)"#)
    }

    @Test("Every corpus mapping model loads")
    func everyCorpusMappingLoads() throws {
        try #require(Corpus.isAvailable, Corpus.missingMessage)
        let files = try FileManager.default.contentsOfDirectory(atPath: Corpus.models.path).filter { $0.hasSuffix(".xcmapping.xml") }
        #expect(files.count == 8)
        for file in files {
            let mapping = try NSMappingModel(validatingContentsOf: Corpus.models.appendingPathComponent(file))
            #expect(!(mapping.entityMappings ?? []).isEmpty, "\(file)")
        }
    }

    /// What a store says about its moods and countries, read by hand: each mood's values and country code, each
    /// country's continent code.
    struct Facts: Equatable {
        var moods: [String] = []
        var countries: [String] = []
        var continentCodes: Set<Int64> = []
    }

    static func facts(of url: URL, model: NSManagedObjectModel) throws -> Facts {
        let reader = try RawStoreReader(url: url, model: model)
        var codeByReference: [RawObjectRef: Int64] = [:]
        var rowsByEntity: [String: [RawRow]] = [:]
        for entity in model.entities where !entity.isAbstract {
            let rows = try reader.rows(of: entity)
            rowsByEntity[entity.name ?? ""] = rows
            for row in rows {
                if case .integer(let code)? = row.attributes["numericISO3166Code"] { codeByReference[RawObjectRef(entity: entity.name ?? "", primaryKey: row.primaryKey)] = code }
            }
        }
        var facts = Facts()
        for row in rowsByEntity["Mood"] ?? [] {
            // Version 1 has no rating (version 2 adds it, default 0) and calls remoteID remoteIdentifier (version 2
            // renames it, keeping the old name as its renaming identifier).
            let rating = row.attributes["rating"] ?? .integer(0)
            let remoteID = row.attributes["remoteID"] ?? row.attributes["remoteIdentifier"] ?? .null
            let values = ["date", "latitude", "longitude", "colors", "creatorID"].map { "\(row.attributes[$0] ?? .null)" } + ["\(rating)", "\(remoteID)"]
            let country = row.toOne["country"].flatMap { $0 }.flatMap { codeByReference[$0] }
            facts.moods.append(values.joined(separator: " ") + " country \(country.map(String.init) ?? "none")")
        }
        for row in rowsByEntity["Country"] ?? [] {
            var continent = row.toOne["continent"].flatMap { $0 }.flatMap { codeByReference[$0] }
            if case .integer(let code)? = row.attributes["isoContinent"] { continent = code }
            facts.countries.append("\(row.attributes["numericISO3166Code"] ?? .null) continent \(continent.map(String.init) ?? "none")")
            if let continent { facts.continentCodes.insert(continent) }
        }
        facts.moods.sort()
        facts.countries.sort()
        return facts
    }

    @Test("Moody stores 1–5 migrate to version 6 through the app's chain", arguments: 1...5)
    func chain(version: Int) throws {
        try #require(Corpus.isAvailable, Corpus.missingMessage)
        NSEntityMigrationPolicy.register(Country5ToCountry6Policy.self, forClassName: "Migrations.Country5ToCountry6Policy")
        ValueTransformer.setValueTransformer(ColorsTransformer(), forName: NSValueTransformerName("ColorsTransformer"))
        let folder = try Self.migrationsFolder()
        let package = folder.appendingPathComponent("Moody.xcdatamodeld")
        let models = try Self.versionNames.map { try NSManagedObjectModel(validatingContentsOf: package, versionName: $0) }
        var url = try Corpus.storeCopy("objcio__core-data__Moody\(version == 1 ? "" : "_\(version)").moody")
        let original = try Self.facts(of: url, model: models[version - 1])
        #expect(!original.moods.isEmpty)
        for step in version..<6 {
            let mappingURL = folder.appendingPathComponent("Moody\(step)ToMoody\(step + 1).xcmappingmodel")
            let mapping = FileManager.default.fileExists(atPath: mappingURL.path)
                ? try NSMappingModel(validatingContentsOf: mappingURL)
                : try NSMappingModel.inferredMappingModel(forSourceModel: models[step - 1], destinationModel: models[step])
            let manager = NSMigrationManager(sourceModel: models[step - 1], destinationModel: models[step])
            var progress: [Float] = []
            manager.progressHandler = { progress.append($0) }
            let destination = url.deletingLastPathComponent().appendingPathComponent("Moody-v\(step + 1).sqlite")
            try manager.migrateStore(from: url, sourceType: NSSQLiteStoreType, options: nil, with: mapping,
                                     toDestinationURL: destination, destinationType: NSSQLiteStoreType, destinationOptions: nil)
            #expect(manager.migrationProgress == 1)
            #expect(progress == progress.sorted() && progress.last == 1, "progress of step \(step) rises to 1")
            url = destination
        }
        let migrated = try Self.facts(of: url, model: models[5])
        #expect(migrated.moods == original.moods, "\(zip(migrated.moods, original.moods).filter { $0 != $1 }.prefix(3))")
        #expect(migrated.countries == original.countries)
        // Version 6 has exactly the continents the countries name (the policy made them from the codes).
        let reader = try RawStoreReader(url: url, model: models[5])
        let continents = try reader.rows(of: models[5].entitiesByName["Continent"]!).compactMap { row -> Int64? in
            if case .integer(let code)? = row.attributes["numericISO3166Code"] { return code }
            return nil
        }
        #expect(continents.count == Set(continents).count)
        #expect(Set(continents) == original.continentCodes)
        // The result opens with version 6 as it is and has the schema of a new version-6 store.
        let fresh = try TemporaryDirectory.make().appendingPathComponent("Fresh.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: models[5])
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: fresh, options: nil)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
        #expect(try CorpusMigrationTests.schema(of: url) == CorpusMigrationTests.schema(of: fresh))
    }
}
