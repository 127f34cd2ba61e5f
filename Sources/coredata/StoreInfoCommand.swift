import ArgumentParser
import Foundation
import OpenCoreData

/// `coredata store info STORE [--model M]`: metadata, entity row counts, and which model version wrote the store.
struct StoreInfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show a store's metadata, its entities' row counts and which model version wrote it."
    )

    @Argument(help: "The store file (.sqlite). It is opened read-only.")
    var store: String

    @Option(help: "The app's model (.xcdatamodeld, …); without it the store's own model cache is used.")
    var model: String?

    func run() throws {
        let metadata = try ToolSupport.metadata(ofStore: store)
        print("Store \(store)")
        print("  type: \(metadata[NSStoreTypeKey] as? String ?? "?")")
        print("  UUID: \(metadata[NSStoreUUIDKey] as? String ?? "?")")
        if let version = metadata[NSPersistenceFrameworkVersionKey] { print("  written by Core Data framework version \(version)") }
        let hashes = (metadata[NSStoreModelVersionHashesKey] as? [String: Any]) ?? [:]
        print("  entities in the metadata: \(hashes.count)")
        if let checksum = metadata[NSPersistentStoreModelVersionChecksumKey] as? String { print("  model version checksum: \(checksum)") }
        let identifiers = (metadata[NSStoreModelVersionIdentifiersKey] as? [Any] ?? []).map { "\($0)" }.filter { !$0.isEmpty }
        if !identifiers.isEmpty { print("  model version identifiers: \(identifiers.joined(separator: ", "))") }
        let system = Set([NSStoreTypeKey, NSStoreUUIDKey, NSPersistenceFrameworkVersionKey, NSStoreModelVersionHashesKey, NSStoreModelVersionIdentifiersKey,
                          NSPersistentStoreModelVersionChecksumKey, "NSStoreModelVersionHashesVersion", "NSStoreModelVersionHashesDigest", "_NSAutoVacuumLevel"])
        for key in metadata.keys.sorted() where !system.contains(key) { print("  \(key): \(metadata[key] ?? "")") }

        let (model, origin) = try ToolSupport.model(forStore: store, modelPath: model)
        print("Model: \(origin)")
        let context = try ToolSupport.openReadOnly(store, model: model)
        print("Rows:")
        for entity in model.entities.sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) {
            let request = NSFetchRequest<NSManagedObject>(entityName: entity.name ?? "")
            request.includesSubentities = false
            let count = try reportingFailures { try context.count(for: request) }
            print("  \(entity.name ?? "")\(entity.isAbstract ? " (abstract)" : ""): \(count)")
        }
    }
}
