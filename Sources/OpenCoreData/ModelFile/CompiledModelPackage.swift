// Compiled models as apps ship them: a `.mom` file (one model version, a keyed archive) and a `.momd` folder
// (one `.mom` per version plus `VersionInfo.plist`, which names the current version and lists every version's
// entity hashes).

import Foundation

/// Reads `.mom` files and `.momd` folders.
///
/// ```swift
/// let model = try CompiledModelPackage.load(URL(fileURLWithPath: "Moody.momd"))
/// let checksums = try CompiledModelPackage.versionChecksums(of: URL(fileURLWithPath: "Moody.momd"))
/// ```
enum CompiledModelPackage {
    /// `VersionInfo.plist` keys (as Xcode's momc writes them).
    static let versionInfoFileName = "VersionInfo.plist"
    static let currentVersionNameKey = "NSManagedObjectModel_CurrentVersionName"
    static let versionHashesKey = "NSManagedObjectModel_VersionHashes"
    static let versionChecksumsKey = "NSManagedObjectModel_VersionChecksums"

    /// Loads a `.mom` file. Errors are `NSCoreDataError` (134060) naming the file, with the decoding error
    /// (`NSCoderReadCorruptError`, 4864) as underlying error.
    static func loadMOM(_ url: URL) throws -> NSManagedObjectModel {
        let data: Data
        do {
            data = try FileContents.read(url)
        } catch {
            throw ModelFileError.make(url, "cannot read the file", underlying: error)
        }
        do {
            let model = try CompiledModelReader.model(fromArchive: data)
            model.sourceURL = url
            return model
        } catch {
            throw ModelFileError.make(url, "not a valid compiled model: \((error as NSError).localizedDescription)", underlying: error)
        }
    }

    /// The parsed `VersionInfo.plist` of a `.momd`, or nil when the folder has none.
    static func versionInfo(of url: URL) throws -> [String: Any]? {
        let plistURL = url.appendingPathComponent(versionInfoFileName)
        guard FileManager.default.fileExists(atPath: plistURL.path) else { return nil }
        do {
            guard let plist = try PropertyListObject.foundationPropertyList(from: FileContents.read(plistURL)) as? [String: Any] else {
                throw ModelFileError.make(plistURL, "the property list is not a dictionary")
            }
            return plist
        } catch let error as NSError where error.code == NSCoreDataError {
            throw error
        } catch {
            throw ModelFileError.make(plistURL, "malformed property list", underlying: error)
        }
    }

    /// The names of the `.mom` files of a `.momd` (without extension), sorted.
    static func versionNames(of url: URL) throws -> [String] {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(".mom") }
                .map { String($0.dropLast(".mom".count)) }.sorted { $0.localizedStandardCompare($1) == .orderedAscending }
        } catch {
            throw ModelFileError.make(url, "cannot list the folder", underlying: error)
        }
    }

    /// The current version of a `.momd`: `NSManagedObjectModel_CurrentVersionName` of its `VersionInfo.plist`, or
    /// its only `.mom`.
    static func currentVersionName(of url: URL) throws -> String {
        let versions = try versionNames(of: url)
        guard let info = try versionInfo(of: url) else {
            if versions.count == 1 { return versions[0] }
            throw ModelFileError.make(url, versions.isEmpty ? "the folder contains no .mom file"
                                      : "the folder has \(versions.count) .mom files and no VersionInfo.plist to choose one")
        }
        guard let name = info[currentVersionNameKey] as? String, !name.isEmpty else {
            throw ModelFileError.make(url.appendingPathComponent(versionInfoFileName), "no \(currentVersionNameKey) string")
        }
        guard versions.contains(name) else {
            throw ModelFileError.make(url, "the current version '\(name)' has no .mom file (versions: \(versions.joined(separator: ", ")))")
        }
        return name
    }

    /// Loads the current version of a `.momd`.
    static func loadMOMD(_ url: URL) throws -> NSManagedObjectModel {
        let model = try loadMOM(url.appendingPathComponent(try currentVersionName(of: url) + ".mom"))
        model.sourceURL = url
        return model
    }

    /// Version name → version checksum for every version of a `.momd`: from `VersionInfo.plist` when it lists
    /// checksums, otherwise computed (as `NSManagedObjectModel.versionChecksum`) from its version hashes, or from
    /// the `.mom` files when it has neither.
    static func versionChecksums(of url: URL) throws -> [String: String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ModelFileError.make(url, "not a compiled model folder (.momd)")
        }
        let info = try versionInfo(of: url)
        if let checksums = info?[versionChecksumsKey] as? [String: String], !checksums.isEmpty { return checksums }
        if let hashes = info?[versionHashesKey] as? [String: [String: Data]], !hashes.isEmpty {
            return hashes.mapValues { ModelDigests.versionChecksum($0) }
        }
        var result: [String: String] = [:]
        for name in try versionNames(of: url) {
            result[name] = try loadMOM(url.appendingPathComponent(name + ".mom")).versionChecksum
        }
        guard !result.isEmpty else { throw ModelFileError.make(url, "the folder contains no .mom file") }
        return result
    }
}

extension NSManagedObjectModel {
    /// The version checksum of every version of a compiled, versioned model (`.momd`), by version name — the values
    /// `NSLightweightMigrationStage` takes.
    ///
    /// ```swift
    /// let checksums = try NSManagedObjectModel.checksumsForVersionedModel(at: momdURL)
    /// checksums["Moody 5"]   // "pb2u…=" (base64 SHA-256)
    /// ```
    public class func checksumsForVersionedModel(at modelURL: URL) throws -> [String: String] {
        try CompiledModelPackage.versionChecksums(of: modelURL)
    }
}
