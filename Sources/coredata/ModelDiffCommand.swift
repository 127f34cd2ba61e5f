import ArgumentParser
import Foundation
import OpenCoreData

/// `coredata model diff OLD NEW`: what changed between two model versions, and whether a lightweight migration
/// can infer the mapping.
struct ModelDiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Show what changed between two model versions and whether lightweight migration can infer it."
    )

    @Argument(help: "The old model version.")
    var old: String

    @Argument(help: "The new model version.")
    var new: String

    func run() throws {
        let source = try ToolSupport.loadModel(old), destination = try ToolSupport.loadModel(new)
        let lines = ModelDifference.lines(from: source, to: destination)
        print(lines.isEmpty ? "No changes (the entity version hashes are equal)." : lines.joined(separator: "\n"))
        do {
            let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
            let changed = (mapping.entityMappings ?? []).filter { $0.mappingType != .copyEntityMappingType }.count
            print("\nLightweight migration: yes (an inferred mapping with \(mapping.entityMappings?.count ?? 0) entity mappings, \(changed) not plain copies)")
        } catch {
            print("\nLightweight migration: no — \((error as NSError).userInfo["reason"] as? String ?? (error as NSError).localizedDescription)")
        }
    }
}

/// The differences between two models, one change per line, matching entities and properties by name or renaming
/// identifier as migration does.
enum ModelDifference {
    static func lines(from source: NSManagedObjectModel, to destination: NSManagedObjectModel) -> [String] {
        var lines: [String] = []
        var matched = Set<String>()
        for entity in destination.entities.sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) {
            let name = entity.name ?? ""
            let oldName = entity.renamingIdentifier.flatMap { source.entitiesByName[$0] != nil ? $0 : nil } ?? name
            guard let old = source.entitiesByName[oldName] else {
                lines.append("+ entity \(name)")
                continue
            }
            matched.insert(oldName)
            if oldName != name { lines.append("~ entity \(oldName) renamed to \(name)") }
            if old.superentity?.name != entity.superentity?.name {
                lines.append("~ entity \(name): parent \(old.superentity?.name ?? "none") → \(entity.superentity?.name ?? "none")")
            }
            if old.isAbstract != entity.isAbstract { lines.append("~ entity \(name): \(entity.isAbstract ? "now abstract" : "no longer abstract")") }
            let oldConstraints = old.uniquenessConstraints.map { $0.map { "\($0)" } }, newConstraints = entity.uniquenessConstraints.map { $0.map { "\($0)" } }
            if oldConstraints != newConstraints { lines.append("~ entity \(name): uniqueness constraints \(oldConstraints) → \(newConstraints)") }
            var matchedProperties = Set<String>()
            for property in entity.properties.sorted(by: { $0.name < $1.name }) where property.entity === entity {
                let oldPropertyName = property.renamingIdentifier.flatMap { old.propertiesByName[$0] != nil ? $0 : nil } ?? property.name
                guard let oldProperty = old.propertiesByName[oldPropertyName] else {
                    lines.append("+ \(name).\(property.name): \(ModelDescription.describe(property))")
                    continue
                }
                matchedProperties.insert(oldPropertyName)
                if oldPropertyName != property.name { lines.append("~ \(name).\(oldPropertyName) renamed to \(property.name)") }
                let before = ModelDescription.describe(oldProperty).replacingOccurrences(of: " \(oldProperty.name)", with: " \(property.name)")
                let after = ModelDescription.describe(property)
                if before != after {
                    lines.append("~ \(name).\(property.name): \(ModelDescription.describe(oldProperty)) → \(after)")
                } else if oldPropertyName == property.name && oldProperty.versionHash != property.versionHash {
                    lines.append("~ \(name).\(property.name): version hash changed (a setting this listing does not show)")
                }
            }
            for property in old.properties.sorted(by: { $0.name < $1.name }) where property.entity === old && !matchedProperties.contains(property.name) {
                if entity.propertiesByName[property.name] == nil { lines.append("- \(name).\(property.name)") }
            }
        }
        for entity in source.entities.sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) where !matched.contains(entity.name ?? "") {
            lines.append("- entity \(entity.name ?? "")")
        }
        return lines
    }
}
