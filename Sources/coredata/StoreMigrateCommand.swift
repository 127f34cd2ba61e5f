import ArgumentParser
import Foundation
import OpenCoreData

/// `coredata store migrate STORE --model M [--dry-run]`: migrates a store to the model's current version (in place,
/// as an app's automatic migration does), with a progress bar on a terminal.
struct StoreMigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Migrate a store to a model's current version.",
        discussion: """
            The version that wrote the store is found among the model's versions by its entity version hashes; when none \
            did, the model the store carries (Z_MODELCACHE) is the source. An Xcode mapping model next to the model \
            package is used when one names the two versions; otherwise the mapping is inferred (lightweight migration, in \
            place, in one transaction). If anything fails the store is left as it was.
            """
    )

    @Argument(help: "The store file (.sqlite).")
    var store: String

    @Option(help: "The app's versioned model (.xcdatamodeld); its current version is the destination.")
    var model: String

    @Flag(help: "Only say what would be done.")
    var dryRun = false

    func run() throws {
        let metadata = try ToolSupport.metadata(ofStore: store)
        let destination = try ToolSupport.loadModel(model)
        if destination.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) {
            print("The store is already at the model's current version; nothing to do.")
            return
        }
        let versions = try ToolSupport.versions(of: model)
        // The version that wrote the store; else the model the store carries (Z_MODELCACHE), which the library's
        // automatic migration uses the same way.
        let cached = try? NSPersistentStoreCoordinator.cachedModelForPersistentStore(at: URL(fileURLWithPath: store))
        guard let source = versions.first(where: { $0.model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) })
            ?? cached.flatMap({ $0.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) ? ("the model the store carries", $0) : nil })
        else {
            throw CommandFailure("No version of \(model) wrote this store (its entity version hashes match none of: \(versions.map(\.name).joined(separator: ", "))), and the store carries no model of its own")
        }
        let target = versions.first { $0.model.entityVersionHashesByName == destination.entityVersionHashesByName }?.name ?? "current"
        print(source.name == "the model the store carries" ? "Migrating from the model the store carries (Z_MODELCACHE) to \"\(target)\"" : "Migrating from version \"\(source.name)\" to \"\(target)\"")
        if dryRun {
            do {
                let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: source.model, destinationModel: destination)
                for entityMapping in mapping.entityMappings ?? [] {
                    print("  \(entityMapping.name ?? ""): \(Self.kind(entityMapping.mappingType))")
                }
                print("Lightweight migration can infer the mapping. (Dry run: the store was not changed.)")
            } catch {
                print("Lightweight migration cannot infer the mapping: \((error as NSError).userInfo["reason"] as? String ?? (error as NSError).localizedDescription)")
                print("An Xcode mapping model next to the model is needed. (Dry run: the store was not changed.)")
            }
            return
        }
        let bar = ProgressBar(enabled: isatty(STDERR_FILENO) == 1)
        let started = Date()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: destination)
        ToolSupport.registerMissingTransformers(for: source.model)
        _ = try reportingFailures {
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: URL(fileURLWithPath: store), options: [
                NSMigratePersistentStoresAutomaticallyOption: true,
                NSInferMappingModelAutomaticallyOption: true,
                OpenCoreDataMigrationProgressHandlerOption: { (progress: Float) in bar.show(progress) },
            ])
        }
        bar.finish()
        print("Migrated \(store) in \(String(format: "%.2f", Date().timeIntervalSince(started))) s.")
    }

    static func kind(_ type: NSEntityMappingType) -> String {
        switch type {
        case .copyEntityMappingType: return "copy"
        case .transformEntityMappingType: return "transform"
        case .addEntityMappingType: return "add"
        case .removeEntityMappingType: return "remove"
        case .customEntityMappingType: return "custom"
        case .undefinedEntityMappingType: return "undefined"
        @unknown default: return "type \(type.rawValue)"
        }
    }
}

/// A one-line progress bar on standard error (only on a terminal).
final class ProgressBar: @unchecked Sendable {
    // @unchecked Sendable: called on the migrating thread only.
    private let enabled: Bool
    private var shown = -1

    init(enabled: Bool) { self.enabled = enabled }

    func show(_ progress: Float) {
        let percent = Int((min(max(progress, 0), 1) * 100).rounded(.down))
        guard enabled, percent != shown else { return }
        shown = percent
        let filled = percent * 30 / 100
        FileHandle.standardError.write(Data("\r[\(String(repeating: "#", count: filled))\(String(repeating: " ", count: 30 - filled))] \(percent) %".utf8))
    }

    func finish() {
        if enabled && shown >= 0 { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
