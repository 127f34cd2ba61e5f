import CSQLite
import Foundation
import Testing

@testable import OpenCoreData

/// Reads `Z_MODELCACHE.Z_CONTENT` with the SQLite C API (independent of the library's store code).
enum RawModelCache {
    static func blob(_ url: URL) throws -> Data? {
        var db: OpaquePointer?
        guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
            defer { sqlite3_close(db) }
            throw NSError(domain: "RawModelCache", code: 1, userInfo: [NSLocalizedDescriptionKey: "cannot open \(url.path)"])
        }
        defer { sqlite3_close(db) }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, "SELECT Z_CONTENT FROM Z_MODELCACHE", -1, &statement, nil) == SQLITE_OK else { return nil }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW, let bytes = sqlite3_column_blob(statement, 0) else { return nil }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(statement, 0)))
    }

    /// The corpus stores (file names) and their cache blobs, for every store that has one.
    static func corpusCaches() throws -> [(store: String, blob: Data, metadata: [String: Any])] {
        var result: [(store: String, blob: Data, metadata: [String: Any])] = []
        for row in try Corpus.index(Corpus.stores) {
            let name = row["filename"] ?? ""
            let copy = try Corpus.storeCopy(name)
            if let blob = try blob(copy) { result.append((name, blob, try RawStoreMetadata.read(copy))) }
        }
        return result
    }
}

/// Every corpus store's model cache decodes to a model whose entity version hashes are the store's
/// `NSStoreModelVersionHashes`, and re-encodes to an archive that decodes to the same model.
@Suite("Corpus: Z_MODELCACHE decoding", .enabled(if: Corpus.isAvailable, Corpus.missingMessage))
struct CorpusModelCacheTests {
    @Test("every model cache decodes to the store's version hashes")
    func everyCacheReproducesTheStoreHashes() throws {
        let caches = try RawModelCache.corpusCaches()
        #expect(caches.count == 26)  // store-format.md §2.3: 26 stores carry a cache
        for cache in caches {
            let model = try CompiledModelReader.model(fromModelCache: cache.blob)
            let stored = try #require(cache.metadata["NSStoreModelVersionHashes"] as? [String: Data], "\(cache.store)")
            let decoded = model.entityVersionHashesByName
            #expect(Set(decoded.keys) == Set(stored.keys), "\(cache.store)")
            for (name, hash) in stored where decoded[name] != hash {
                Issue.record("\(cache.store): entity \(name) hashes differently")
            }
            // The same archive, written by Core Data, as a .mom file: NSManagedObjectModel(contentsOf:) loads it.
            let mom = try TemporaryDirectory.make().appendingPathComponent("Apple.mom")
            try Deflate.inflate(cache.blob).write(to: mom)
            #expect(NSManagedObjectModel(contentsOf: mom)?.entityVersionHashesByName == stored, "\(cache.store)")
            if let identifiers = cache.metadata["NSStoreModelVersionIdentifiers"] as? [String] {
                #expect(Set(model.versionIdentifiers.compactMap { $0 as? String }) == Set(identifiers), "\(cache.store)")
            }
        }
    }
}

/// The archives OpenCoreData writes use Apple's classes and keys: for every class, the keys written are among the
/// keys Core Data itself wrote for that class in the corpus model caches (read here with PropertyListSerialization,
/// independently of the library's reader), apart from the documented keys the corpus does not show.
@Suite("Corpus: compiled-model archives use Apple's class names and keys", .enabled(if: Corpus.isAvailable, Corpus.missingMessage))
struct CompiledModelLayoutTests {
    /// Class name → keys used, over every object of a keyed archive.
    static func keysByClass(_ archive: Data) throws -> [String: Set<String>] {
        let plist = try #require(try PropertyListSerialization.propertyList(from: archive, format: nil) as? [String: Any])
        let objects = try #require(plist["$objects"] as? [Any])
        var result: [String: Set<String>] = [:]
        for case let object as [String: Any] in objects where object["$class"] != nil {
            // A UID is {"CF$UID": n} on Apple platforms and an `_NSKeyedArchiverUID` with a `value` on Linux.
            let reference = object["$class"]!
            let index = (reference as? [String: Any])?["CF$UID"] as? Int
                ?? Mirror(reflecting: reference).children.first { $0.label == "value" }.flatMap { Int("\($0.value)") } ?? -1
            guard objects.indices.contains(index), let description = objects[index] as? [String: Any],
                  let name = description["$classname"] as? String else { continue }
            result[name, default: []].formUnion(object.keys.filter { $0 != "$class" })
        }
        return result
    }

    /// Keys written here that the corpus caches do not show (DEVIATIONS.md, models #4).
    /// `NSUserInfo` is Apple's property key (its fetched properties carry it) but no corpus attribute or relationship
    /// has user info.
    static let documentedExtras: [String: Set<String>] = [
        "NSAttributeDescription": ["NSIsIndexedBySpotlight", "NSIsStoredInExternalRecord", "NSUserInfo"],
        "NSRelationshipDescription": ["NSIsIndexedBySpotlight", "NSIsStoredInExternalRecord", "NSUserInfo"],
        "NSDerivedAttributeDescription": ["NSUserInfo"],
    ]

    /// Classes the corpus caches do not contain, checked against the class they extend.
    static let documentedClasses: [String: (base: String, extra: Set<String>)] = [
        "NSCompositeAttributeDescription": ("NSAttributeDescription", ["NSElements"]),
        // String operators: the keys of NSInPredicateOperator (NSModifier, NSFlags, NSOperatorType).
        "NSMatchingPredicateOperator": ("NSInPredicateOperator", []), "NSLikePredicateOperator": ("NSInPredicateOperator", []),
        "NSBeginsWithPredicateOperator": ("NSInPredicateOperator", []), "NSEndsWithPredicateOperator": ("NSInPredicateOperator", []),
        "NSBetweenPredicateOperator": ("NSComparisonPredicateOperator", []),
        "NSCustomPredicateOperator": ("NSComparisonPredicateOperator", ["NSSelectorName"]),
        "NSTruePredicate": ("NSSelfExpression", []), "NSFalsePredicate": ("NSSelfExpression", []),
        "NSSetExpression": ("NSComparisonPredicate", ["NSExpressionType"]),
        "NSAggregateExpression": ("NSSelfExpression", ["NSCollection"]),
        "NSAnyKeyExpression": ("NSSelfExpression", []),
        "NSSubqueryExpression": ("NSSelfExpression", ["NSCollection", "NSVariable", "NSPredicate"]),
        "NSTernaryExpression": ("NSSelfExpression", ["NSPredicate", "NSTrueExpression", "NSFalseExpression"]),
    ]

    /// Foundation value classes (default values) with the keys Foundation's own archiver writes for them.
    static let foundationClasses: [String: Set<String>] = [
        "NSDate": ["NS.time"], "NSUUID": ["NS.uuidbytes"], "NSURL": ["NS.base", "NS.relative"], "NSNull": [],
    ]

    @Test("every class and key written for the corpus models is one Core Data writes")
    func keysAreApples() throws {
        var apple: [String: Set<String>] = [:]
        var models: [NSManagedObjectModel] = []
        for cache in try RawModelCache.corpusCaches() {
            let archive = try Deflate.inflate(cache.blob)
            apple.merge(try Self.keysByClass(archive)) { $0.union($1) }
            models.append(try CompiledModelReader.model(fromArchive: archive))
        }
        for file in try CompiledModelTests.xmlModelFiles() { models.append(try Corpus.model(file)) }
        var ours: [String: Set<String>] = [:]
        for model in models {
            ours.merge(try Self.keysByClass(try CompiledModelWriter.archive(model))) { $0.union($1) }
        }
        #expect(ours.count >= 15)
        for (className, keys) in ours {
            if let foundationKeys = Self.foundationClasses[className] {
                #expect(keys == foundationKeys, "\(className)")
                continue
            }
            if let documented = Self.documentedClasses[className] {
                let base = (apple[documented.base] ?? []).union(Self.documentedExtras[documented.base] ?? [])
                #expect(keys.subtracting(base).subtracting(documented.extra).isEmpty, "\(className): \(keys.subtracting(base).sorted())")
                continue
            }
            let known = try #require(apple[className], "class \(className) is not in Apple's archives")
            let extra = keys.subtracting(known).subtracting(Self.documentedExtras[className] ?? [])
            #expect(extra.isEmpty, "\(className) has keys Apple does not write: \(extra.sorted())")
        }
    }
}
