import Foundation
import OpenCoreData

extension ModelContainer {
    /// A container for `forTypes` whose models are kept as `configurations` say: ``ModelConfiguration``s (SQLite files
    /// in Core Data's format), or one custom ``DataStoreConfiguration``.
    ///
    /// ```swift
    /// let container = try ModelContainer(for: Trip.self, configurations: JSONStoreConfiguration(fileURL: url))
    /// ```
    public convenience init(for forTypes: any PersistentModel.Type..., configurations: any DataStoreConfiguration...) throws {
        try self.init(for: Schema(forTypes), configurations: configurations)
    }

    /// A container for `schema` whose models are kept as `configurations` say: ``ModelConfiguration``s, or one custom
    /// ``DataStoreConfiguration`` (DEVIATIONS.md SD17: one custom store per container). The custom configuration's
    /// schema is the container's when it names none; it is validated, then its store is made.
    ///
    /// ```swift
    /// let container = try ModelContainer(for: Schema([Trip.self]), configurations: [JSONStoreConfiguration(fileURL: url)])
    /// ```
    public convenience init(for givenSchema: Schema, configurations: [any DataStoreConfiguration]) throws {
        let modelConfigurations = configurations.compactMap { $0 as? ModelConfiguration }
        if modelConfigurations.count == configurations.count {
            try self.init(for: givenSchema, migrationPlan: nil, configurations: modelConfigurations)
            return
        }
        guard configurations.count == 1, let configuration = configurations.first else {
            throw SwiftDataError(.loadIssueModelContainer, "A container keeps its models in one custom data store, or in ModelConfigurations' stores; it was given \(configurations.count) configurations with a custom one (DEVIATIONS.md SD17).")
        }
        try self.init(for: givenSchema, dataStore: Self.makeDataStore(configuration, schema: givenSchema))
    }

    /// The store `configuration` makes, with the container's schema when it names none.
    private static func makeDataStore<C: DataStoreConfiguration>(_ configuration: C, schema: Schema) throws -> any DataStore {
        var configuration = configuration
        if configuration.schema == nil { configuration.schema = schema }
        do {
            try configuration.validate()
            return try C.Store(configuration, migrationPlan: nil)
        } catch let error as SwiftDataError {
            throw error
        } catch {
            throw SwiftDataError(.loadIssueModelContainer, "The data store of the configuration '\(configuration.name)' could not be opened: \(error)", underlying: error)
        }
    }
}
