import Foundation

// NSCoding for models and entities. A model archives as its compiled-model archive (the bytes of a `.mom` file, the
// format OpenCoreData already writes for Z_MODELCACHE and reads from Xcode's output); an entity as the compiled
// archive of its model (or of a model holding a copy of it) and its name. Decoding reads that archive back.

/// The keys under which models and entities archive.
enum ModelCodingKeys {
    static let compiledModel = "NSCompiledModelArchive"
    static let entityName = "NSEntityName"

    /// The compiled archive of `model`; a model that cannot be archived is a programmer error, as at Apple, whose
    /// keyed archiver raises for what it cannot encode.
    static func compiledArchive(of model: NSManagedObjectModel) -> Data {
        do {
            return try CompiledModelWriter.archive(model)
        } catch {
            preconditionFailure("\(model.debugName) cannot be archived: \(error.localizedDescription)")
        }
    }
}

extension NSManagedObjectModel: NSCoding {
    /// Archives the model as its compiled-model archive. A model that cannot be compiled (a block predicate or
    /// expression in it, which Apple's archiver refuses with an exception too) stops the program with the reason.
    ///
    /// ```swift
    /// let data = try NSKeyedArchiver.archivedData(withRootObject: model, requiringSecureCoding: false)
    /// ```
    public func encode(with coder: NSCoder) {
        coder.encode(ModelCodingKeys.compiledArchive(of: self) as NSData, forKey: ModelCodingKeys.compiledModel)
    }

    /// The model in a coder written by `encode(with:)`, or nil.
    static func decodedModel(from coder: NSCoder) -> NSManagedObjectModel? {
        // Linux Foundation's unarchiver stops the process when asked for a key it does not have: ask first.
        guard coder.containsValue(forKey: ModelCodingKeys.compiledModel),
              let data = coder.decodeObject(forKey: ModelCodingKeys.compiledModel) as? Data
                ?? (coder.decodeObject(forKey: ModelCodingKeys.compiledModel) as? NSData).map({ Data(referencing: $0) }) else { return nil }
        do {
            return try CompiledModelReader.model(fromArchive: data)
        } catch {
            // Damaged data is bad input: reported to a coder that collects errors, never a stop (Linux Foundation's
            // default policy stops the process on a reported error).
            if coder.decodingFailurePolicy == .setErrorAndReturn { coder.failWithError(error) }
            return nil
        }
    }
}

extension NSEntityDescription: NSCoding {
    /// Archives the entity: the compiled archive of its model (of a model holding a copy of it when it belongs to
    /// none) and its name. An entity that cannot be compiled stops the program with the reason, as for a model.
    ///
    /// ```swift
    /// let data = try NSKeyedArchiver.archivedData(withRootObject: entity, requiringSecureCoding: false)
    /// ```
    public func encode(with coder: NSCoder) {
        let model: NSManagedObjectModel
        if let owner = owningModel {
            model = owner
        } else {
            model = NSManagedObjectModel()
            model.entities = [copy() as! NSEntityDescription]
        }
        coder.encode(ModelCodingKeys.compiledArchive(of: model) as NSData, forKey: ModelCodingKeys.compiledModel)
        coder.encode(name.map { NSString(string: $0) }, forKey: ModelCodingKeys.entityName)
    }

    /// The entity in a coder written by `encode(with:)`, or nil.
    static func decodedEntity(from coder: NSCoder) -> NSEntityDescription? {
        guard coder.containsValue(forKey: ModelCodingKeys.entityName) else { return nil }
        let rawName = coder.decodeObject(forKey: ModelCodingKeys.entityName)
        guard let name = (rawName as? String) ?? (rawName as? NSString).map({ String($0) }),
              let model = NSManagedObjectModel.decodedModel(from: coder) else { return nil }
        return model.entitiesByName[name]
    }
}
