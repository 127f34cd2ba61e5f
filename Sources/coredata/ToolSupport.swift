import CSQLite
import Foundation
import OpenCoreData

/// Loading models and stores for the commands, with one-line failures.
enum ToolSupport {
    /// Loads a model: `.xcdatamodeld` (its current version), `.xcdatamodel`, `.momd`, `.mom`, or an Xcode model's
    /// XML `contents` file under any name.
    static func loadModel(_ path: String) throws -> NSManagedObjectModel {
        let url = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { throw CommandFailure("No such model: \(url.path)") }
        if !isDirectory.boolValue && !["mom", "contents"].contains(url.pathExtension) && url.lastPathComponent != "contents" {
            // A bare XML model file: read it as the `contents` of a package.
            let package = FileManager.default.temporaryDirectory.appendingPathComponent("coredata-\(UUID().uuidString)/Model.xcdatamodel")
            try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: package.deletingLastPathComponent()) }
            try FileManager.default.copyItem(at: url, to: package.appendingPathComponent("contents"))
            return try reportingFailures { try NSManagedObjectModel(validatingContentsOf: package) }
        }
        return try reportingFailures { try NSManagedObjectModel(validatingContentsOf: url) }
    }

    /// Every version of a model file with its name: the versions of an `.xcdatamodeld` or the `.mom` files of a
    /// `.momd`, else the one model.
    static func versions(of path: String) throws -> [(name: String, model: NSManagedObjectModel)] {
        let url = URL(fileURLWithPath: path)
        switch url.pathExtension {
        case "xcdatamodeld":
            return try reportingFailures {
                try NSManagedObjectModel.versionNames(ofModelAt: url).map { ($0, try NSManagedObjectModel(validatingContentsOf: url, versionName: $0)) }
            }
        case "momd":
            let files = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
            return files.filter { $0.hasSuffix(".mom") }.sorted().compactMap { file in
                NSManagedObjectModel(contentsOf: url.appendingPathComponent(file)).map { (String(file.dropLast(4)), $0) }
            }
        default:
            return [(url.deletingPathExtension().lastPathComponent, try loadModel(path))]
        }
    }

    /// The store's metadata, or a one-line failure saying why the file is not a store.
    static func metadata(ofStore path: String) throws -> [String: Any] {
        let url = URL(fileURLWithPath: path)
        guard FileManager.default.fileExists(atPath: url.path) else { throw CommandFailure("No store file at \(url.path)") }
        return try reportingFailures { try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url) }
    }

    /// Registers a pass-through transformer under every transformer name of the model that no program
    /// registered, so values of transformable attributes read as their stored bytes instead of stopping the tool.
    static func registerMissingTransformers(for model: NSManagedObjectModel) {
        for entity in model.entities {
            for case let attribute as NSAttributeDescription in entity.properties {
                guard let name = attribute.valueTransformerName, !name.isEmpty,
                    ValueTransformer(forName: NSValueTransformerName(name)) == nil
                else { continue }
                ValueTransformer.setValueTransformer(StoredBytesTransformer(), forName: NSValueTransformerName(name))
            }
        }
    }

    /// Opens a store read-only with `model`.
    static func openReadOnly(_ path: String, model: NSManagedObjectModel) throws -> NSManagedObjectContext {
        _ = try metadata(ofStore: path)
        registerMissingTransformers(for: model)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        _ = try reportingFailures {
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: URL(fileURLWithPath: path),
                                               options: [NSReadOnlyPersistentStoreOption: true])
        }
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// The model a store was written with: `--model` (the version whose hashes match, for a versioned model), or
    /// the store's own model cache.
    static func model(forStore path: String, modelPath: String?) throws -> (model: NSManagedObjectModel, origin: String) {
        let metadata = try metadata(ofStore: path)
        if let modelPath {
            let versions = try versions(of: modelPath)
            if let match = versions.first(where: { $0.model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) }) {
                return (match.model, versions.count > 1 ? "version \"\(match.name)\" of \(modelPath)" : modelPath)
            }
            throw CommandFailure("No version of \(modelPath) wrote this store (entity version hashes differ); try 'coredata store migrate'")
        }
        do {
            return (try NSPersistentStoreCoordinator.cachedModelForPersistentStore(at: URL(fileURLWithPath: path)), "the store's model cache")
        } catch {
            throw CommandFailure("\((error as NSError).localizedDescription) (name the store's model with --model)")
        }
    }

    /// Rows of an SQL query on a file opened read-only (SQLite's C API).
    static func rows(_ path: String, _ sql: String) throws -> [[String?]] {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
            defer { sqlite3_close(db) }
            throw CommandFailure("Cannot open \(path): \(db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory")")
        }
        defer { sqlite3_close(db) }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else {
            throw CommandFailure("\(path): \(String(cString: sqlite3_errmsg(db)))")
        }
        defer { sqlite3_finalize(statement) }
        var result: [[String?]] = []
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else { throw CommandFailure("\(path): \(String(cString: sqlite3_errmsg(db)))") }
            result.append((0..<sqlite3_column_count(statement)).map { index in
                sqlite3_column_text(statement, index).map { String(cString: $0) }
            })
        }
        return result
    }
}

/// Reads a transformable value as the bytes the store holds (for models whose app transformers are absent).
final class StoredBytesTransformer: ValueTransformer {
    override class func transformedValueClass() -> AnyClass { NSData.self }
    override class func allowsReverseTransformation() -> Bool { true }
    override func transformedValue(_ value: Any?) -> Any? { value }
    override func reverseTransformedValue(_ value: Any?) -> Any? { value }
}
