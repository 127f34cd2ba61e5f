/// Reads Xcode mapping models: the `.xcmappingmodel` package's `xcmapping.xml`, a document in Core Data's XML
/// store format with `XDDEVMAPPINGMODEL`, `XDDEVENTITYMAPPING`, `XDDEVATTRIBUTEMAPPING` and
/// `XDDEVRELATIONSHIPMAPPING` objects. Explicit value expressions are keyed archives of Apple's expression
/// classes (`valueexpressiondata`); the rest carry Xcode's "autogenerate expression" flag, and their
/// expressions are synthesised as Xcode's mapping compiler does once the source and destination models are
/// known (the models are referenced by their Xcode paths and resolved by package and version name near the
/// mapping file, or given by the migration).
enum XcodeMappingModelReader {
    /// The mapping model packages in a directory.
    static func mappingModelURLs(in directory: URL) -> [URL] {
        guard let items = try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil) else { return [] }
        return items.filter { $0.pathExtension == "xcmappingmodel" }.sorted { $0.path < $1.path }
    }

    /// Loads the mapping model at `url` (an `.xcmappingmodel` package or its `xcmapping.xml`).
    static func load(_ url: URL) throws -> NSMappingModel {
        let file = url.pathExtension == "xcmappingmodel" ? url.appendingPathComponent("xcmapping.xml") : url
        let data: Data
        do {
            data = try FileContents.read(file)
        } catch {
            throw CoreDataError.make(NSFileReadNoSuchFileError, "Cannot read the mapping model at \(file.path)", userInfo: [NSFilePathErrorKey: file.path, NSUnderlyingErrorKey: error])
        }
        let document = try XMLStoreDocument(data: data, url: file)
        guard let model = document.objects(ofType: "XDDEVMAPPINGMODEL").first else {
            throw XMLStoreDocument.corrupt(file, "no XDDEVMAPPINGMODEL object (not an Xcode mapping model)")
        }
        var entityMappings: [(number: Int, mapping: NSEntityMapping)] = []
        for id in model.relationships["entitymappings"] ?? [] {
            guard let object = document.objects[id] else { throw XMLStoreDocument.corrupt(file, "the entity mapping \(id) is missing") }
            entityMappings.append((object.attributes["mappingnumber"] as? Int ?? entityMappings.count, try entityMapping(object, in: document, file: file)))
        }
        let mapping = NSMappingModel()
        mapping.entityMappings = entityMappings.sorted { $0.number < $1.number }.map(\.mapping)
        mapping.sourceModelPath = model.attributes["sourcemodelpath"] as? String
        mapping.destinationModelPath = model.attributes["destinationmodelpath"] as? String
        if let source = resolveModel(mapping.sourceModelPath, near: url), let destination = resolveModel(mapping.destinationModelPath, near: url) {
            mapping.synthesizeExpressions(source: source, destination: destination)
        }
        return mapping
    }

    private static let mappingTypes: [String: NSEntityMappingType] = [
        "Undefined": .undefinedEntityMappingType, "Custom": .customEntityMappingType, "Add": .addEntityMappingType,
        "Remove": .removeEntityMappingType, "Copy": .copyEntityMappingType, "Transform": .transformEntityMappingType,
    ]

    private static func entityMapping(_ object: XMLStoreDocument.Object, in document: XMLStoreDocument, file: URL) throws -> NSEntityMapping {
        let mapping = NSEntityMapping()
        let source = object.attributes["sourcename"] as? String, destination = object.attributes["destinationname"] as? String
        mapping.sourceEntityName = source
        mapping.destinationEntityName = destination
        mapping.name = [source, destination].compactMap { $0 }.joined(separator: "To")
        let typeName = object.attributes["mappingtypename"] as? String ?? "Undefined"
        guard let type = mappingTypes[typeName] else { throw XMLStoreDocument.corrupt(file, "unknown entity mapping type '\(typeName)'") }
        mapping.mappingType = type
        if let policy = object.attributes["migrationpolicyclassname"] as? String, !policy.isEmpty { mapping.entityMigrationPolicyClassName = policy }
        let autogenerates = object.attributes["autogenerateexpression"] as? Bool ?? false
        func properties(_ key: String) throws -> [NSPropertyMapping] {
            try (object.relationships[key] ?? []).map { id in
                guard let property = document.objects[id] else { throw XMLStoreDocument.corrupt(file, "the property mapping \(id) is missing") }
                return try propertyMapping(property, entityAutogenerates: autogenerates, file: file)
            }.sorted { ($0.name ?? "") < ($1.name ?? "") }
        }
        mapping.attributeMappings = try properties("attributemappings")
        mapping.relationshipMappings = try properties("relationshipmappings")
        return mapping
    }

    private static func propertyMapping(_ object: XMLStoreDocument.Object, entityAutogenerates: Bool, file: URL) throws -> NSPropertyMapping {
        let mapping = NSPropertyMapping()
        mapping.name = object.attributes["name"] as? String
        if let data = object.attributes["valueexpressiondata"] as? Data {
            do {
                mapping.valueExpression = try PredicateArchiving.expression(fromArchive: data)
            } catch {
                throw XMLStoreDocument.corrupt(file, "the value expression of \(mapping.name ?? "?") cannot be decoded: \((error as NSError).localizedDescription)")
            }
        } else if let keyPath = object.attributes["sourcekeypath"] as? String, let mappingName = object.attributes["sourcemappingname"] as? String {
            let source: NSExpression
            do {
                source = try NSExpression(validatingFormat: keyPath, argumentArray: [])
            } catch {
                throw XMLStoreDocument.corrupt(file, "the source key path '\(keyPath)' of \(mapping.name ?? "?") is malformed")
            }
            mapping.valueExpression = NSExpression(node: .function(target: NSExpression(forVariable: "manager"), name: "destinationInstancesForEntityMappingNamed:sourceInstances:",
                                                                   arguments: [NSExpression(forConstantValue: mappingName), source]))
        } else {
            mapping.isAutogenerated = (object.attributes["autogenerateexpression"] as? Bool ?? false) || entityAutogenerates
        }
        return mapping
    }

    /// The model version a mapping's Xcode path names (`…/Moody.xcdatamodeld/Moody 5.xcdatamodel`), looked up by
    /// package and version name in the mapping file's folder and up to three folders above it.
    static func resolveModel(_ path: String?, near url: URL) -> NSManagedObjectModel? {
        guard let path else { return nil }
        let components = path.split(separator: "/").map(String.init)
        guard let versionFile = components.last else { return nil }
        let version = versionFile.hasSuffix(".xcdatamodel") ? String(versionFile.dropLast(".xcdatamodel".count)) : versionFile
        let packageName = components.count > 1 ? components[components.count - 2] : nil
        var directory = url.deletingLastPathComponent()
        if url.lastPathComponent == "xcmapping.xml" { directory = directory.deletingLastPathComponent() }
        for _ in 0..<4 {
            if let packageName, packageName.hasSuffix(".xcdatamodeld") {
                let package = directory.appendingPathComponent(packageName)
                if let model = try? NSManagedObjectModel(validatingContentsOf: package, versionName: version) { return model }
                // What Xcode ships instead: the package compiled to a .momd with a .mom per version.
                let compiled = directory.appendingPathComponent(String(packageName.dropLast("xcdatamodeld".count)) + "momd")
                    .appendingPathComponent(version + ".mom")
                if FileManager.default.fileExists(atPath: compiled.path), let model = NSManagedObjectModel(contentsOf: compiled) { return model }
            }
            let single = directory.appendingPathComponent(versionFile)
            if single.pathExtension == "xcdatamodel", let model = try? NSManagedObjectModel(validatingContentsOf: single) { return model }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }
}

/// Finds the explicit mapping model for a migration among compiled mapping models (`.cdm`, matched by Apple's rule:
/// their version hashes are among the models') and Xcode mapping model packages (matched exactly).
enum MappingModelLookup {
    static func mappingModel(source: NSManagedObjectModel, destination: NSManagedObjectModel, directories: [URL]) -> NSMappingModel? {
        for directory in directories {
            let compiled = ((try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? [])
                .filter { $0.pathExtension == "cdm" }.sorted { $0.path < $1.path }
            for url in compiled {
                guard let mapping = try? NSMappingModel.load(url), mapping.hashesFit(source: source, destination: destination) else { continue }
                return mapping
            }
            for url in XcodeMappingModelReader.mappingModelURLs(in: directory) {
                guard let mapping = try? XcodeMappingModelReader.load(url), mapping.matches(source: source, destination: destination) else { continue }
                mapping.synthesizeExpressions(source: source, destination: destination)
                return mapping
            }
        }
        return nil
    }
}
