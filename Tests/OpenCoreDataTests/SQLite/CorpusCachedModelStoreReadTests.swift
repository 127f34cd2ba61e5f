import Foundation
import Testing

@testable import OpenCoreData

/// The corpus stores that have no usable XML model — Apple's Recipes seed store (its XML was re-saved by a newer
/// Xcode) and CoreDataPlus SampleModel2 V1/V2 (models built in code) — open with the model decoded from their own
/// `Z_MODELCACHE` through `NSPersistentStoreCoordinator.cachedModelForPersistentStore(at:)`, and every row reads
/// back as the independent raw reader finds it (the same comparison as `CorpusStoreReadTests`).
@Suite("Corpus: stores read with the model from their own Z_MODELCACHE", .enabled(if: Corpus.isAvailable, Corpus.missingMessage))
struct CorpusCachedModelStoreReadTests {
    static let stores = [
        "alhoqbani__AppleSample-iPhoneCoreDataRecipes__Recipes.sqlite",
        "alemar11__CoreDataPlus__SampleModel2_V1.sqlite",
        "alemar11__CoreDataPlus__SampleModel2_V2.sqlite",
    ]

    @Test("each store's cached model has the store's version hashes and reads every row", arguments: stores)
    func readEveryRow(store: String) throws {
        let url = try CorpusStoreReadTests.storeCopy(store)
        let model = try NSPersistentStoreCoordinator.cachedModelForPersistentStore(at: url)
        let metadata = try RawStoreMetadata.read(url)
        #expect(model.entityVersionHashesByName == metadata[NSStoreModelVersionHashesKey] as? [String: Data])
        // Transformable attributes use app transformers: read their bytes through the pass-through transformer.
        ValueTransformer.setValueTransformer(ValueTransformer(), forName: CorpusStoreReadTests.rawTransformerName)
        for entity in model.entities {
            for case let attribute as NSAttributeDescription in entity.properties
            where attribute.entity === entity && attribute.attributeType == .transformableAttributeType {
                attribute.valueTransformerName = CorpusStoreReadTests.rawTransformerName.rawValue
            }
        }
        var totals = CorpusStoreReadTests.Totals()
        var notes: [String] = []
        try CorpusStoreReadTests.compare(store: store, model: model, url: url, totals: &totals, notes: &notes)
        #expect(totals.stores == 1)
        #expect(totals.rows > 0)
        print("corpus read (cached model): \(store): \(totals.entities) entities, \(totals.rows) rows, \(totals.values) values, \(totals.toOneLinks) to-one, \(totals.toManyRelationships) to-many")
    }
}
