// The model compiler Linux lacks (Xcode's `momc`): turns an Xcode model package into the compiled form apps
// ship and `NSManagedObjectModel(contentsOf:)` loads.

import Foundation

/// Compiles `.xcdatamodeld` packages into `.momd` folders and `.xcdatamodel` packages into `.mom` files.
///
/// A `.momd` holds one `.mom` per version (the keyed archive Core Data reads; see `CompiledModelWriter`) and a
/// `VersionInfo.plist` with `NSManagedObjectModel_CurrentVersionName`, `NSManagedObjectModel_VersionHashes`
/// (version → entity → hash) and `NSManagedObjectModel_VersionChecksums` (version → checksum).
///
/// ```swift
/// try ModelCompiler.compile(URL(fileURLWithPath: "Moody.xcdatamodeld"), to: URL(fileURLWithPath: "Moody.momd"))
/// let model = NSManagedObjectModel(contentsOf: URL(fileURLWithPath: "Moody.momd"))
/// ```
public enum ModelCompiler {
    /// Compiles `source` (`.xcdatamodeld` → `.momd` folder, `.xcdatamodel` → `.mom` file) into `destination`,
    /// replacing what is there. Every version is checked to read back equal before anything is written. Errors are
    /// `NSError`s in NSCocoaErrorDomain: `NSCoreDataError` (134060) for a malformed source model or an unwritable
    /// destination, `NSCoderInvalidValueError` (4866) for a model with parts that cannot be archived.
    public static func compile(_ source: URL, to destination: URL) throws {
        switch source.pathExtension {
        case "xcdatamodeld":
            try compileVersioned(source, to: destination)
        case "xcdatamodel":
            let data = try compiledArchive(ModelPackage.loadXCDataModel(source), source: source)
            try write(destination) { try data.write(to: destination) }
        default:
            throw ModelFileError.make(source, "not an Xcode model package (expected a .xcdatamodeld or .xcdatamodel)")
        }
    }

    /// The `.mom` contents of `model`, checked to decode back to an equal model.
    static func compiledArchive(_ model: NSManagedObjectModel, source: URL) throws -> Data {
        let data = try CompiledModelWriter.archive(model)
        let decoded = try CompiledModelReader.model(fromArchive: data)
        // Both are read-only from here on; frozen, they cache their version hashes for the comparison.
        model.freeze()
        decoded.freeze()
        let differences = ModelComparison.differences(model, decoded)
        guard differences.isEmpty else {
            throw ModelFileError.make(source, "the compiled model does not read back equal: \(differences.prefix(3).joined(separator: "; "))")
        }
        return data
    }

    private static func compileVersioned(_ source: URL, to destination: URL) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: source.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ModelFileError.make(source, "no such model package")
        }
        let current = try ModelPackage.currentVersionName(of: source)
        var archives: [String: Data] = [:]
        var hashes: [String: [String: Data]] = [:]
        var checksums: [String: String] = [:]
        for version in try ModelPackage.versionNames(of: source) {
            let model = try ModelPackage.loadVersion(named: version, in: source)
            archives[version] = try compiledArchive(model, source: source.appendingPathComponent(version + ".xcdatamodel"))
            hashes[version] = model.entityVersionHashesByName
            checksums[version] = model.versionChecksum
        }
        let info: [String: Any] = [
            CompiledModelPackage.currentVersionNameKey: current,
            CompiledModelPackage.versionHashesKey: hashes,
            CompiledModelPackage.versionChecksumsKey: checksums,
        ]
        let plist = try PropertyListSerialization.data(fromPropertyList: info, format: .xml, options: 0)
        try write(destination) {
            if FileManager.default.fileExists(atPath: destination.path) { try FileManager.default.removeItem(at: destination) }
            try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
            for (version, data) in archives { try data.write(to: destination.appendingPathComponent(version + ".mom")) }
            try plist.write(to: destination.appendingPathComponent(CompiledModelPackage.versionInfoFileName))
        }
    }

    private static func write(_ destination: URL, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch {
            throw ModelFileError.make(destination, "cannot write the compiled model", underlying: error)
        }
    }
}
