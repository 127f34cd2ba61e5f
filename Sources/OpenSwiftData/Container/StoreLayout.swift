import Foundation
import OpenCoreData

/// Which models each configuration's store holds, when a container has several (SwiftData splits a schema across
/// stores by configuration): each configuration holds its own schema's models, or the container's when it names
/// none; each model is in exactly one store, and a relationship stays within its store (Core Data relates objects
/// of one store only).
///
/// ```swift
/// let layout = try StoreLayout(configurations: [trips, settings], schema: schema)
/// layout.configurationName(of: trips)   // "trips" (nil when there is one configuration: the store holds every model)
/// ```
struct StoreLayout {
    /// The model the coordinator uses: the schema's, or with several configurations a copy naming each one's entities.
    let managedObjectModel: NSManagedObjectModel
    private let namedConfigurations: Bool

    init(configurations: [ModelConfiguration], schema: Schema, migrates: Bool) throws {
        guard configurations.count > 1 else {
            managedObjectModel = schema.managedObjectModel
            namedConfigurations = false
            return
        }
        guard !migrates else {
            throw SwiftDataError(.loadIssueModelContainer, "A migration plan with several configurations is not supported on Linux yet (DEVIATIONS.md SD1).")
        }
        var seen = Set<String>()
        for configuration in configurations where !seen.insert(configuration.name).inserted {
            throw SwiftDataError(.loadIssueModelContainer, "Two configurations are named '\(configuration.name)'; name each store's configuration differently.")
        }
        var storeOfEntity: [String: String] = [:]
        for configuration in configurations {
            for entity in (configuration.schema ?? schema).entities {
                if let other = storeOfEntity[entity.name] {
                    throw SwiftDataError(.loadIssueModelContainer, "\(entity.name) is in the configurations '\(other)' and '\(configuration.name)'; a model is stored in one store.")
                }
                storeOfEntity[entity.name] = configuration.name
            }
        }
        for entity in schema.entities {
            guard let store = storeOfEntity[entity.name] else {
                throw SwiftDataError(.loadIssueModelContainer, "\(entity.name) is in no configuration's schema; list it in the schema of the configuration that stores it.")
            }
            for relationship in entity.relationships where storeOfEntity[relationship.destination] != store {
                throw SwiftDataError(.loadIssueModelContainer, "\(entity.name).\(relationship.name) relates models of the configurations '\(store)' and '\(storeOfEntity[relationship.destination] ?? "?")'; a relationship stays within one store.")
            }
        }
        guard let model = schema.managedObjectModel.copy() as? NSManagedObjectModel else {
            throw SwiftDataError(.loadIssueModelContainer, "The schema's model could not be copied.")
        }
        for configuration in configurations {
            let entities = model.entities.filter { storeOfEntity[$0.name ?? ""] == configuration.name }
            model.setEntities(entities, forConfigurationName: configuration.name)
        }
        managedObjectModel = model
        namedConfigurations = true
    }

    /// The Core Data configuration `configuration`'s store is added with (nil: every entity).
    func configurationName(of configuration: ModelConfiguration) -> String? {
        namedConfigurations ? configuration.name : nil
    }
}
