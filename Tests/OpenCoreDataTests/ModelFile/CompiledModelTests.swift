import Foundation
import Testing

@testable import OpenCoreData
@testable import OpenCoreDataFoundation

/// Compiled models: every corpus XML model compiles to a `.mom` that `NSManagedObjectModel(contentsOf:)` loads with
/// the same entity hashes and structure; `.momd` folders carry their versions, current version and checksums; every
/// corpus model cache re-encodes to an archive that decodes to an equal model; damaged archives throw.
@Suite("Compiled models (.mom / .momd)")
struct CompiledModelTests {
    static func xmlModelFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: Corpus.models.path)
            .filter { $0.hasSuffix(".xml") && !$0.contains(".xcmapping.") }.sorted()
    }

    @Test("every corpus XML model → .mom → loaded model: same hashes and structure", .enabled(if: Corpus.isAvailable, Corpus.missingMessage))
    func corpusModelsRoundTrip() throws {
        let files = try Self.xmlModelFiles()
        #expect(files.count > 40)
        var checked = 0
        for file in files {
            let package = try Corpus.modelPackage(file)
            let source = try NSManagedObjectModel(validatingContentsOf: package)
            let mom = package.deletingLastPathComponent().appendingPathComponent("Model.mom")
            try ModelCompiler.compile(package, to: mom)
            let loaded = try #require(NSManagedObjectModel(contentsOf: mom), "\(file)")
            // Frozen (as a coordinator freezes them), the models cache their hashes between the comparisons below.
            source.freeze()
            loaded.freeze()
            #expect(loaded.entityVersionHashesByName == source.entityVersionHashesByName, "\(file)")
            #expect(loaded.versionChecksum == source.versionChecksum, "\(file)")
            let differences = ModelComparison.differences(source, loaded)
            #expect(differences.isEmpty, "\(file): \(differences.prefix(5))")
            // Entities, properties and relationships as the public API shows them.
            for entity in source.entities {
                let other = try #require(loaded.entitiesByName[entity.name ?? ""])
                #expect(Set(entity.propertiesByName.keys) == Set(other.propertiesByName.keys), "\(file) \(entity.name ?? "")")
                for (name, relationship) in entity.relationshipsByName {
                    #expect(other.relationshipsByName[name]?.destinationEntity?.name == relationship.destinationEntity?.name)
                    #expect(other.relationshipsByName[name]?.inverseRelationship?.name == relationship.inverseRelationship?.name)
                }
            }
            checked += 1
        }
        #expect(checked == files.count)
    }

    @Test("every corpus model cache re-encodes and decodes to an equal model", .enabled(if: Corpus.isAvailable, Corpus.missingMessage))
    func modelCachesReencode() throws {
        for cache in try RawModelCache.corpusCaches() {
            let decoded = try CompiledModelReader.model(fromModelCache: cache.blob)
            let reencoded = try CompiledModelWriter.modelCache(decoded)
            let again = try CompiledModelReader.model(fromModelCache: reencoded)
            let differences = ModelComparison.differences(decoded, again)
            #expect(differences.isEmpty, "\(cache.store): \(differences.prefix(5))")
            #expect(again.entityVersionHashesByName == cache.metadata["NSStoreModelVersionHashes"] as? [String: Data], "\(cache.store)")
        }
    }

    @Test("a .xcdatamodeld compiles to a .momd whose current version, hashes and checksums come from VersionInfo.plist")
    func versionedModel() throws {
        let source = try #require(Bundle.module.url(forResource: "Library", withExtension: "xcdatamodeld"))
        let momd = try TemporaryDirectory.make().appendingPathComponent("Library.momd")
        try ModelCompiler.compile(source, to: momd)
        let files = Set(try FileManager.default.contentsOfDirectory(atPath: momd.path))
        #expect(files == ["Library.mom", "Library 2.mom", "VersionInfo.plist"])
        let info = try #require(try PropertyListSerialization.propertyList(from: Data(contentsOf: momd.appendingPathComponent("VersionInfo.plist")), format: nil) as? [String: Any])
        let current = try NSManagedObjectModel.currentVersionName(ofModelAt: source)
        #expect(info["NSManagedObjectModel_CurrentVersionName"] as? String == current)
        let hashes = try #require(info["NSManagedObjectModel_VersionHashes"] as? [String: [String: Data]])
        #expect(Set(hashes.keys) == ["Library", "Library 2"])
        for version in ["Library", "Library 2"] {
            let xml = try NSManagedObjectModel(validatingContentsOf: source, versionName: version)
            #expect(hashes[version] == xml.entityVersionHashesByName)
        }
        let loaded = try NSManagedObjectModel(validatingContentsOf: momd)
        let currentXML = try NSManagedObjectModel(validatingContentsOf: source)
        #expect(loaded.entityVersionHashesByName == currentXML.entityVersionHashesByName)
        #expect(ModelComparison.differences(currentXML, loaded).isEmpty)
        // Checksums: base64 SHA-256 of each version's entity hashes in name order, computed here independently.
        let checksums = try NSManagedObjectModel.checksumsForVersionedModel(at: momd)
        for (version, versionHashes) in hashes {
            var bytes: [UInt8] = []
            for name in versionHashes.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) { bytes += versionHashes[name]! }
            #expect(checksums[version] == Data(SHA2.sha256(bytes)).base64EncodedString())
        }
        // Without checksums in VersionInfo.plist they are computed from the hashes; without hashes, from the .mom files.
        var trimmed = info
        trimmed["NSManagedObjectModel_VersionChecksums"] = nil
        try PropertyListSerialization.data(fromPropertyList: trimmed, format: .binary, options: 0).write(to: momd.appendingPathComponent("VersionInfo.plist"))
        #expect(try NSManagedObjectModel.checksumsForVersionedModel(at: momd) == checksums)
        trimmed["NSManagedObjectModel_VersionHashes"] = nil
        try PropertyListSerialization.data(fromPropertyList: trimmed, format: .binary, options: 0).write(to: momd.appendingPathComponent("VersionInfo.plist"))
        #expect(try NSManagedObjectModel.checksumsForVersionedModel(at: momd) == checksums)
        // A .mom alone.
        let mom = momd.appendingPathComponent("Library 2.mom")
        let version2 = try NSManagedObjectModel(validatingContentsOf: source, versionName: "Library 2")
        #expect(NSManagedObjectModel(contentsOf: mom)?.entityVersionHashesByName == version2.entityVersionHashesByName)
        #expect(throws: NSError.self) { try NSManagedObjectModel.checksumsForVersionedModel(at: mom) }
    }

    @Test("NSPersistentContainer(name:) finds a compiled <name>.momd among the resources")
    func containerFindsCompiledModel() throws {
        let source = try #require(Bundle.module.url(forResource: "Library", withExtension: "xcdatamodeld"))
        let resources = try TemporaryDirectory.make()
        try ModelCompiler.compile(source, to: resources.appendingPathComponent("Library.momd"))
        let found = try ContainerModelLookup.model(named: "Library", searching: [resources]).get()
        #expect(found.sourceURL?.lastPathComponent == "Library.momd")
        #expect(found.entityVersionHashesByName == (try NSManagedObjectModel(validatingContentsOf: source)).entityVersionHashesByName)
    }

    @Test("a model built in code, with every kind of part, round-trips through a .mom")
    func codeBuiltModel() throws {
        let model = DerivedAttributeHashTests.sampleModel2V1()
        let index = NSFetchIndexDescription(name: "byAlias", elements: [NSFetchIndexElementDescription(property: model.entitiesByName["Author"]!.propertiesByName["alias"]!, collationType: .binary)])
        index.partialIndexPredicate = NSPredicate(format: "alias != nil")
        model.entitiesByName["Author"]!.indexes = [index]
        model.entitiesByName["Page"]!.compoundIndexes = [["number", "isBookmarked"]]
        let title = model.entitiesByName["Book"]!.propertiesByName["title"]!
        title.setValidationPredicates([NSPredicate(format: "length >= 3"), NSPredicate(format: "SELF CONTAINS %@", "title")],
                                      withValidationWarnings: ["too short", "no title"])
        title.userInfo = ["key": "value"]
        title.versionHashModifier = "v2"
        let price = model.entitiesByName["Book"]!.propertiesByName["price"] as! NSAttributeDescription
        price.defaultValue = NSNumber(value: 3)
        model.setEntities(Array(model.entities.prefix(3)), forConfigurationName: "Small")
        let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Book")
        request.predicate = NSPredicate(format: "title BEGINSWITH[c] $PREFIX")
        request.fetchLimit = 5
        model.setFetchRequestTemplate(request, forName: "BooksByPrefix")
        model.versionIdentifiers = ["2.0"]
        let data = try CompiledModelWriter.archive(model)
        let decoded = try CompiledModelReader.model(fromArchive: data)
        #expect(ModelComparison.differences(model, decoded).isEmpty, "\(ModelComparison.differences(model, decoded))")
        #expect(decoded.fetchRequestTemplate(forName: "BooksByPrefix")?.fetchLimit == 5)
        #expect(decoded.fetchRequestTemplate(forName: "BooksByPrefix")?.predicate?.predicateFormat == "title BEGINSWITH[c] $PREFIX")
        #expect(decoded.entitiesByName["Book"]?.propertiesByName["title"]?.validationWarnings.map { "\($0)" } == ["too short", "no title"])
        #expect(decoded.entitiesByName["Author"]?.indexes.first?.partialIndexPredicate?.predicateFormat == "alias != nil")
        #expect(decoded.entities(forConfigurationName: "Small")?.count == 3)
        #expect(decoded.versionIdentifiers == ["2.0"])
    }

    /// A deterministic generator (SplitMix64), so that a failure reproduces.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Every object reference of an archive's `$objects`, as (object index, key) paths.
    static func rewiringUIDs(of archive: Data, count: Int, seed: UInt64) throws -> [Data] {
        guard case .dictionary(var top) = try BinaryPropertyList.read(archive), case .array(let objects) = top["$objects"] else { return [] }
        var generator = SeededGenerator(state: seed)
        var variants: [Data] = []
        let objectCount = UInt64(objects.count)
        for _ in 0..<count {
            var mutated = objects
            for _ in 0..<3 {
                let index = Int.random(in: 1..<objects.count, using: &generator)
                guard case .dictionary(var fields) = mutated[index] else { continue }
                let keys = fields.keys.filter { if case .uid = fields[$0] { $0 != "$class" } else { false } }.sorted()
                guard let key = keys.randomElement(using: &generator) else { continue }
                fields[key] = .uid(UInt64.random(in: 0..<objectCount, using: &generator))
                mutated[index] = .dictionary(fields)
            }
            top["$objects"] = .array(mutated)
            variants.append(BinaryPropertyListWriter.write(.dictionary(top)))
        }
        return variants
    }

    @Test("archives whose object references are rewired at random decode or throw 4864, never crash")
    func rewiredReferences() throws {
        let model = DerivedAttributeHashTests.sampleModel2V1()
        let composite = NSCompositeAttributeDescription()
        composite.name = "location"
        let latitude = NSAttributeDescription()
        latitude.name = "latitude"
        latitude.attributeType = .doubleAttributeType
        composite.elements = [latitude]
        model.entitiesByName["Page"]!.properties += [composite]
        let archive = try CompiledModelWriter.archive(model)
        var refused = 0
        for variant in try Self.rewiringUIDs(of: archive, count: 150, seed: 14) {
            do {
                let decoded = try CompiledModelReader.model(fromArchive: variant)
                _ = decoded.entityVersionHashesByName  // what a store computes first
            } catch {
                refused += 1
                #expect((error as NSError).code == 4864)
            }
        }
        #expect(refused > 30)
    }

    @Test("truncated and damaged compiled models throw NSCoderReadCorruptError, never crash")
    func damagedArchives() throws {
        let model = DerivedAttributeHashTests.sampleModel2V1()
        let data = try CompiledModelWriter.archive(model)
        for length in stride(from: 0, to: data.count, by: max(1, data.count / 60)) {
            #expect { try CompiledModelReader.model(fromArchive: data.prefix(length)) } throws: { error in
                (error as NSError).domain == NSCocoaErrorDomain && (error as NSError).code == 4864
            }
        }
        var damagedCount = 0
        for offset in stride(from: 0, to: data.count, by: 7) {
            var damaged = data
            damaged[offset] ^= 0xA5
            do { _ = try CompiledModelReader.model(fromArchive: damaged) } catch { damagedCount += 1; #expect((error as NSError).code == 4864) }
        }
        #expect(damagedCount > 0)
        let cache = Deflate.deflate(data)
        #expect { try CompiledModelReader.model(fromModelCache: cache.prefix(cache.count / 2)) } throws: { error in
            (error as NSError).code == 4864 && (error as NSError).localizedDescription.contains("DEFLATE")
        }
        #expect { try CompiledModelReader.model(fromModelCache: cache + Data([1, 2, 3])) } throws: { error in (error as NSError).code == 4864 }
        // A keyed archive whose root is not a model.
        let notAModel = try PredicateArchiving.archivedData(with: NSPredicate(format: "a == 1"))
        #expect { try CompiledModelReader.model(fromArchive: notAModel) } throws: { error in
            (error as NSError).code == 4864 && (error as NSError).localizedDescription.contains("NSManagedObjectModel")
        }
    }
}
