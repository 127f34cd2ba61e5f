import ArgumentParser
import Foundation
import OpenCoreData

/// `coredata store model STORE`: prints the model a store carries in its model cache.
struct StoreModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Print the model a SQLite store carries (decoded from its Z_MODELCACHE).",
        discussion: "Entities with their attributes (and types), relationships, fetched properties and version hashes."
    )

    @Argument(help: "The store file (.sqlite). It is opened read-only.")
    var store: String

    func run() throws {
        let url = URL(fileURLWithPath: store)
        let model = try reportingFailures { try NSPersistentStoreCoordinator.cachedModelForPersistentStore(at: url) }
        print(ModelDescription.text(of: model, title: "Model of \(url.path) (from its Z_MODELCACHE)"))
    }
}
