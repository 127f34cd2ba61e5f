import Foundation
import OpenSwiftData
import Testing

// Versioned schemas and a migration plan. VersionedSchema: "An interface for describing a specific version of a
// schema, including the models it contains"; SchemaMigrationPlan: "An interface for describing the evolution of a
// schema and how to migrate between specific versions"; MigrationStage: "Describes a migration between two versions
// of the same schema", either `.lightweight` or `.custom(…, willMigrate:, didMigrate:)` — handlers a stage runs
// before and after it migrates (as Core Data's NSCustomMigrationStage, whose handlers "provide an opportunity to
// prepare the persistent store's data for the upcoming changes before the stage runs, and perform any cleanup tasks
// afterward").
//
// The catalogue's editions evolve: V1 (isbn, title) → V2 (title renamed `name` through `originalName`, an optional
// `language` added: lightweight) → V3 (isbn becomes `.unique`, `slug` added; custom: willMigrate removes the
// duplicate isbns V1 and V2 allowed, didMigrate fills the slugs).

enum CatalogueV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Edition.self] }

    @Model final class Edition {
        var isbn: String
        var title: String

        init(isbn: String, title: String) {
            self.isbn = isbn
            self.title = title
        }
    }
}

enum CatalogueV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Edition.self] }

    @Model final class Edition {
        var isbn: String
        @Attribute(originalName: "title") var name: String
        var language: String?

        init(isbn: String, name: String, language: String? = nil) {
            self.isbn = isbn
            self.name = name
            self.language = language
        }
    }
}

enum CatalogueV3: VersionedSchema {
    static let versionIdentifier = Schema.Version(3, 0, 0)
    static var models: [any PersistentModel.Type] { [Edition.self] }

    @Model final class Edition {
        @Attribute(.unique) var isbn: String
        var name: String
        var language: String?
        var slug: String = ""

        init(isbn: String, name: String, language: String? = nil) {
            self.isbn = isbn
            self.name = name
            self.language = language
        }
    }
}

enum CatalogueMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [CatalogueV1.self, CatalogueV2.self, CatalogueV3.self] }
    static var stages: [MigrationStage] { [v1ToV2, v2ToV3] }

    static var v1ToV2: MigrationStage { .lightweight(fromVersion: CatalogueV1.self, toVersion: CatalogueV2.self) }

    static var v2ToV3: MigrationStage {
        .custom(fromVersion: CatalogueV2.self, toVersion: CatalogueV3.self,
                willMigrate: { context in
                    // V2's models: keep the first edition (by name) of each isbn, so that V3 can make isbn unique.
                    var seen = Set<String>()
                    for edition in try context.fetch(FetchDescriptor<CatalogueV2.Edition>(sortBy: [SortDescriptor(\.name)]))
                        where !seen.insert(edition.isbn).inserted {
                        context.delete(edition)
                    }
                    try context.save()
                },
                didMigrate: { context in
                    // V3's models: fill the new attribute.
                    for edition in try context.fetch(FetchDescriptor<CatalogueV3.Edition>()) {
                        edition.slug = edition.name.lowercased().replacingOccurrences(of: " ", with: "-")
                    }
                    try context.save()
                })
    }
}

@Suite("Documented: schema migration")
struct DocumentedMigrationTests {
    /// Writes a store with V1's models, as the first version of the app did: two editions share isbn 1.
    static func writeVersion1Store(at url: URL) throws {
        let container = try ModelContainer(for: CatalogueV1.Edition.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        context.insert(CatalogueV1.Edition(isbn: "1", title: "Blindness"))
        context.insert(CatalogueV1.Edition(isbn: "1", title: "Blindness Reprint"))
        context.insert(CatalogueV1.Edition(isbn: "2", title: "The Cave"))
        context.insert(CatalogueV1.Edition(isbn: "3", title: "All the Names"))
        try context.save()
    }

    /// A store written by V1 opened with the plan goes through both stages, V1 → V2 → V3: the data is kept (the title
    /// under its new name), willMigrate's de-duplication happened before `.unique` applied, and didMigrate filled the
    /// new attribute.
    @Test func aVersion1StoreMigratesThroughEveryStage() throws {
        let directory = LibraryFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("catalogue.store")
        try Self.writeVersion1Store(at: url)

        let container = try ModelContainer(for: CatalogueV3.Edition.self, migrationPlan: CatalogueMigrationPlan.self,
                                           configurations: ModelConfiguration(url: url))
        let editions = try ModelContext(container).fetch(FetchDescriptor<CatalogueV3.Edition>(sortBy: [SortDescriptor(\.isbn)]))
        #expect(editions.map(\.isbn) == ["1", "2", "3"])
        #expect(editions.map(\.name) == ["Blindness", "The Cave", "All the Names"])
        #expect(editions.map(\.slug) == ["blindness", "the-cave", "all-the-names"])
        #expect(editions.allSatisfy { $0.language == nil })
    }

    /// After the migration the store is V3's: isbn is unique, so inserting a known isbn updates that edition.
    @Test func theMigratedStoreHasTheNewConstraint() throws {
        let directory = LibraryFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("catalogue.store")
        try Self.writeVersion1Store(at: url)

        let container = try ModelContainer(for: CatalogueV3.Edition.self, migrationPlan: CatalogueMigrationPlan.self,
                                           configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        context.insert(CatalogueV3.Edition(isbn: "2", name: "The Cave", language: "pt"))
        try context.save()
        let caves = try ModelContext(container).fetch(FetchDescriptor<CatalogueV3.Edition>(predicate: #Predicate { $0.isbn == "2" }))
        #expect(caves.count == 1 && caves.first?.language == "pt")
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<CatalogueV3.Edition>()) == 3)
    }

    /// A store written by V2 runs only the stages after V2 (here the custom one), and the migrated store opens again
    /// without migrating: the second opening changes nothing.
    @Test func aVersion2StoreRunsTheRemainingStagesOnce() throws {
        let directory = LibraryFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("catalogue.store")
        do {
            let context = ModelContext(try ModelContainer(for: CatalogueV2.Edition.self, configurations: ModelConfiguration(url: url)))
            context.insert(CatalogueV2.Edition(isbn: "9", name: "Baltasar and Blimunda", language: "en"))
            context.insert(CatalogueV2.Edition(isbn: "9", name: "Memorial do Convento", language: "pt"))
            try context.save()
        }
        do {
            let container = try ModelContainer(for: CatalogueV3.Edition.self, migrationPlan: CatalogueMigrationPlan.self,
                                               configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            let editions = try context.fetch(FetchDescriptor<CatalogueV3.Edition>())
            #expect(editions.map(\.name) == ["Baltasar and Blimunda"] && editions.map(\.slug) == ["baltasar-and-blimunda"])
            #expect(editions.map(\.language) == ["en"])
            editions.first?.slug = "kept"
            try context.save()
        }
        let again = try ModelContainer(for: CatalogueV3.Edition.self, migrationPlan: CatalogueMigrationPlan.self,
                                       configurations: ModelConfiguration(url: url))
        #expect(try ModelContext(again).fetch(FetchDescriptor<CatalogueV3.Edition>()).map(\.slug) == ["kept"],
                "didMigrate did not run again: the store was already V3")
    }

    /// Schema(versionedSchema:) describes the version's models and carries its version identifier.
    @Test func aVersionedSchemaDescribesItsModels() {
        let schema = Schema(versionedSchema: CatalogueV3.self)
        #expect(schema.version == Schema.Version(3, 0, 0))
        #expect(schema.entities.map(\.name) == ["Edition"])
        #expect(schema.entitiesByName["Edition"]?.attributesByName["isbn"]?.isUnique == true)
        #expect(Schema(versionedSchema: CatalogueV2.self).entitiesByName["Edition"]?.attributesByName["name"]?.originalName == "title")
    }
}
