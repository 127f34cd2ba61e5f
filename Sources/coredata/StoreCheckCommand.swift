import ArgumentParser
import Foundation
import OpenCoreData

/// `coredata store check STORE [--model M]`: SQLite integrity and consistency with the model.
struct StoreCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a store: SQLite integrity, metadata, and consistency with its model.",
        discussion: "Exits with status 1 when a problem is found; each problem is printed on its own line."
    )

    @Argument(help: "The store file (.sqlite). It is opened read-only.")
    var store: String

    @Option(help: "The app's model; without it the store's own model cache is used.")
    var model: String?

    func run() throws {
        let metadata = try ToolSupport.metadata(ofStore: store)
        var problems: [String] = []
        func report(_ ok: Bool, _ text: String) {
            print("\(ok ? "ok     " : "PROBLEM") \(text)")
            if !ok { problems.append(text) }
        }
        let integrity = try ToolSupport.rows(store, "PRAGMA integrity_check").compactMap { $0.first ?? nil }
        report(integrity == ["ok"], "SQLite integrity check: \(integrity.prefix(5).joined(separator: "; "))")
        report(metadata[NSStoreUUIDKey] != nil, "metadata: store UUID \(metadata[NSStoreUUIDKey] as? String ?? "missing")")
        let hashes = (metadata[NSStoreModelVersionHashesKey] as? [String: Any] ?? [:]).compactMapValues { $0 as? Data }
        let loaded: NSManagedObjectModel
        if let modelPath = model {
            let versions = try ToolSupport.versions(of: modelPath)
            if let match = versions.first(where: { $0.model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) }) {
                report(true, "model: written by version \"\(match.name)\" of \(modelPath)")
                loaded = match.model
            } else {
                let current = try ToolSupport.loadModel(modelPath)
                let differing = Set(hashes.keys).union(current.entitiesByName.keys).filter { hashes[$0] != current.entitiesByName[$0]?.versionHash }.sorted()
                report(false, "model: no version of \(modelPath) wrote this store; entities that differ from the current version: \(differing.joined(separator: ", "))")
                throw ExitCode(1)
            }
        } else if let cached = try? NSPersistentStoreCoordinator.cachedModelForPersistentStore(at: URL(fileURLWithPath: store)) {
            report(cached.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata), "model cache: its version hashes match the metadata")
            loaded = cached
        } else {
            print("note    no model given and no model cache in the store: only SQLite integrity and metadata were checked")
            if !problems.isEmpty { throw ExitCode(1) }
            print("No problems found.")
            return
        }
        do {
            let context = try ToolSupport.openReadOnly(store, model: loaded)
            report(true, "the store opens with the model (every table and column present)")
            for entity in loaded.entities.sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) where !entity.isAbstract {
                let request = NSFetchRequest<NSManagedObject>(entityName: entity.name ?? "")
                request.includesSubentities = false
                do {
                    let objects = try context.fetch(request)
                    var dangling = 0
                    for object in objects {
                        for relationship in entity.relationshipsByName.values where !relationship.isToMany && !relationship.isTransient {
                            if let target = object.value(forKey: relationship.name) as? NSManagedObject, (try? context.existingObject(with: target.objectID)) == nil {
                                dangling += 1
                            }
                        }
                    }
                    report(dangling == 0, "\(entity.name ?? ""): \(objects.count) rows read\(dangling > 0 ? ", \(dangling) to-one references to missing objects" : "")")
                } catch {
                    report(false, "\(entity.name ?? ""): rows cannot be read: \((error as NSError).localizedDescription)")
                }
            }
        } catch let failure as CommandFailure {
            report(false, "the store does not open with the model: \(failure.description)")
        }
        if !problems.isEmpty {
            print("\(problems.count) problem\(problems.count == 1 ? "" : "s") found.")
            throw ExitCode(1)
        }
        print("No problems found.")
    }
}
