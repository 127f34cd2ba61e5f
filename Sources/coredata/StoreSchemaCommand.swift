import ArgumentParser
import Foundation
import OpenCoreData

/// `coredata store schema MODEL`: the SQL a new SQLite store of the model gets, read back from a store created in a
/// temporary folder.
struct StoreSchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the SQL (tables, indexes, triggers) of a new SQLite store of a model."
    )

    @Argument(help: "The model (.xcdatamodeld, .xcdatamodel, .momd, .mom).")
    var model: String

    func run() throws {
        let loaded = try ToolSupport.loadModel(model)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("coredata-schema-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("Schema.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: loaded)
        try reportingFailures {
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
            try coordinator.remove(coordinator.persistentStores[0])
        }
        for row in try ToolSupport.rows(url.path, "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid") {
            if let sql = row[0] { print(sql + ";") }
        }
    }
}
