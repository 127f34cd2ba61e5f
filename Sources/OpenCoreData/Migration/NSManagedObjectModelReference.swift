/// A reference to one model version by its version checksum, for staged migration: the model itself, a model
/// file, or a model found by name or by entity version hashes among a bundle's resources. Resolving it checks
/// the checksum.
///
/// For example:
/// ```swift
/// let v1 = NSManagedObjectModelReference(model: modelV1, versionChecksum: modelV1.versionChecksum)
/// let v2 = NSManagedObjectModelReference(fileURL: v2URL, versionChecksum: "…")
/// ```
public final class NSManagedObjectModelReference: NSObject, @unchecked Sendable {
    // @unchecked Sendable: immutable after init (the model is frozen once a coordinator uses it).

    /// The checksum the model must have.
    public let versionChecksum: String
    private let resolve: () -> NSManagedObjectModel?

    /// A reference to a model in memory.
    public init(model: NSManagedObjectModel, versionChecksum: String) {
        self.versionChecksum = versionChecksum
        resolve = { model }
        super.init()
    }

    /// A reference to a model file (`.xcdatamodeld`, `.xcdatamodel`, `.mom`, `.momd`).
    public init(fileURL: URL, versionChecksum: String) {
        self.versionChecksum = versionChecksum
        resolve = { NSManagedObjectModel(contentsOf: fileURL) }
        super.init()
    }

    /// A reference to the model package named `modelName` among `bundle`'s resources (the main bundle and
    /// SwiftPM resource folders when nil); the version with the checksum is chosen among its versions.
    public init(name modelName: String, in bundle: Bundle?, versionChecksum: String) {
        self.versionChecksum = versionChecksum
        resolve = {
            let directories = bundle.map { [$0.resourceURL].compactMap { $0 } } ?? ModelPackage.defaultSearchDirectories()
            for url in directories.flatMap(ModelPackage.modelURLs(in:)) where url.deletingPathExtension().lastPathComponent == modelName {
                if let model = MigrationModelLookup.versions(of: url).first(where: { $0.versionChecksum == versionChecksum }) { return model }
            }
            return nil
        }
        super.init()
    }

    /// Apple's Objective-C-derived spelling of `init(name:in:versionChecksum:)`.
    public convenience init(name modelName: String, inBundle bundle: Bundle?, versionChecksum: String) {
        self.init(name: modelName, in: bundle, versionChecksum: versionChecksum)
    }

    /// A reference to the model version among `bundle`'s resources whose entity version hashes are these.
    public init(entityVersionHashes versionHash: [AnyHashable: Any], in bundle: Bundle?, versionChecksum: String) {
        self.versionChecksum = versionChecksum
        let metadata: [String: Any] = [NSStoreModelVersionHashesKey: Dictionary(uniqueKeysWithValues: versionHash.compactMap { key, value in (key.base as? String).map { ($0, value) } })]
        resolve = {
            let directories = bundle.map { [$0.resourceURL].compactMap { $0 } } ?? ModelPackage.defaultSearchDirectories()
            return MigrationModelLookup.sourceModel(forStoreMetadata: metadata, destination: nil, directories: directories)
        }
        super.init()
    }

    /// Apple's Objective-C-derived spelling of `init(entityVersionHashes:in:versionChecksum:)`.
    public convenience init(entityVersionHashes versionHash: [AnyHashable: Any], inBundle bundle: Bundle?, versionChecksum: String) {
        self.init(entityVersionHashes: versionHash, in: bundle, versionChecksum: versionChecksum)
    }

    /// The model, or an empty model when it cannot be found or its checksum differs (staged migration then
    /// fails with `NSManagedObjectModelReferenceNotFoundError`).
    public var resolvedModel: NSManagedObjectModel {
        (try? resolvedModelThrowing()) ?? NSManagedObjectModel()
    }

    /// The model; throws `NSManagedObjectModelReferenceNotFoundError` (134504) naming the checksum otherwise.
    func resolvedModelThrowing() throws -> NSManagedObjectModel {
        guard let model = resolve() else {
            throw CoreDataError.make(NSManagedObjectModelReferenceNotFoundError, "No model with the version checksum \(versionChecksum) was found")
        }
        guard model.versionChecksum == versionChecksum else {
            throw CoreDataError.make(NSManagedObjectModelReferenceNotFoundError, "The referenced model's version checksum is \(model.versionChecksum), not \(versionChecksum)")
        }
        return model
    }
}

/// A model reference could not be resolved (Apple's code).
public let NSManagedObjectModelReferenceNotFoundError: Int = 134_504
/// A staged migration's store metadata does not support staged migration.
public let NSStagedMigrationFrameworkVersionMismatchError: Int = 134_505
/// A staged migration would go back to an older model version.
public let NSStagedMigrationBackwardMigrationError: Int = 134_506
