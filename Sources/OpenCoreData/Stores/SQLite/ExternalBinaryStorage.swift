/// Binary attribute values kept in files next to the store (`allowsExternalBinaryDataStorage`), in Apple's
/// layout: `.<store name>_SUPPORT/_EXTERNAL_DATA/<UUID>`, referenced from the row by `0x02` + the UUID's 36 ASCII
/// characters + `0x00`; values kept in the row are prefixed with `0x01` (store-format.md §4).
struct ExternalBinaryStorage {
    /// The folder holding the files.
    let directory: URL
    /// Whether the store is an in-memory database (`/dev/null`): every value stays in its row.
    let isInMemory: Bool
    /// Whether new folders are created 0700 and new files 0600 (the store's owner-only option).
    var ownerOnly = false

    /// Copies the external-data files of the store at `source` into the folder of the store at `destination`
    /// (their names are UUIDs, so nothing is overwritten); used when one store's file replaces another's.
    static func copyFiles(fromStoreAt source: String, toStoreAt destination: String) throws {
        let from = ExternalBinaryStorage(storePath: source).directory, to = ExternalBinaryStorage(storePath: destination).directory
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: from.path), !names.isEmpty else { return }
        try FileManager.default.createDirectory(at: to, withIntermediateDirectories: true)
        for name in names where !FileManager.default.fileExists(atPath: to.appendingPathComponent(name).path) {
            try FileManager.default.copyItem(at: from.appendingPathComponent(name), to: to.appendingPathComponent(name))
        }
    }

    /// Makes the external-data folder of the store at `destination` hold exactly the files of the store at `source`
    /// (files the source lacks are deleted, missing ones copied); used when a store's contents are replaced by
    /// another's, whose rows refer only to the source's files.
    static func mirrorFiles(fromStoreAt source: String, toStoreAt destination: String) throws {
        let from = ExternalBinaryStorage(storePath: source).directory, to = ExternalBinaryStorage(storePath: destination).directory
        let wanted = Set((try? FileManager.default.contentsOfDirectory(atPath: from.path)) ?? [])
        for name in (try? FileManager.default.contentsOfDirectory(atPath: to.path)) ?? [] where !wanted.contains(name) {
            try FileManager.default.removeItem(at: to.appendingPathComponent(name))
        }
        try copyFiles(fromStoreAt: source, toStoreAt: destination)
    }

    init(storePath: String, ownerOnly: Bool = false) {
        self.ownerOnly = ownerOnly
        isInMemory = storePath == SQLiteStore.inMemoryPath
        let store = URL(fileURLWithPath: storePath)
        let name = store.deletingPathExtension().lastPathComponent
        directory = store.deletingLastPathComponent().appendingPathComponent(".\(name)_SUPPORT/_EXTERNAL_DATA", isDirectory: true)
    }

    /// The column value for `data`: inline below the threshold, otherwise a new file and its reference.
    func encode(_ data: Data, threshold: Int) throws -> (column: Data, file: URL?) {
        guard data.count > threshold, !isInMemory else { return (Data([0x01]) + data, nil) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                attributes: ownerOnly ? [.posixPermissions: 0o700] : nil)
        let name = UUID().uuidString
        let file = directory.appendingPathComponent(name)
        do {
            try data.write(to: file, options: .atomic)
            if ownerOnly { try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path) }
        } catch {
            // A full disk or an unwritable folder: Core Data's save error, the file system's reason underneath.
            try? FileManager.default.removeItem(at: file)
            throw CoreDataError.make(NSPersistentStoreSaveError, "The external binary data file \(file.path) cannot be written: \((error as NSError).localizedDescription)",
                                     userInfo: [NSUnderlyingErrorKey: error, NSFilePathErrorKey: file.path])
        }
        return (Data([0x02]) + Data(name.utf8) + Data([0x00]), file)
    }

    /// The file a column value refers to, if it is an external reference.
    func file(referencedBy column: Data) -> URL? {
        guard column.first == 0x02 else { return nil }
        let nameBytes = column.dropFirst().prefix { $0 != 0 }
        let name = String(decoding: nameBytes, as: UTF8.self)
        guard UUID(uuidString: name) != nil else { return nil }
        return directory.appendingPathComponent(name)
    }

    /// The data of an external reference.
    func read(reference column: Data) throws -> Data {
        guard let file = file(referencedBy: column) else {
            throw CoreDataError.make(NSPersistentStoreOperationError, "Malformed external binary data reference in the store")
        }
        do {
            return try FileContents.read(file)
        } catch {
            throw CoreDataError.make(NSPersistentStoreOperationError, "The external binary data file \(file.path) cannot be read", userInfo: [NSUnderlyingErrorKey: error])
        }
    }
}
