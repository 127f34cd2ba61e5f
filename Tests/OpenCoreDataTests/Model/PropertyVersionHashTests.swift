import OpenCoreData
import Testing

// NSAttributeDescription.versionHash and NSRelationshipDescription.versionHash: Apple's algorithm
// (store-format.md §12). The expected bytes were computed from the algorithm with Python's hashlib:
//   A = SHA256(SHA256("name" ‖ int16le 1) ‖ int32le 700)
//   R = SHA256(SHA256("country" ‖ int16le 1) ‖ "Country" ‖ "moods" ‖ int32le 1 ‖ int32le 0)

private func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

@Suite struct PropertyVersionHashTests {
    @Test func anAttributesVersionHashIsApplesDigest() {
        let name = NSAttributeDescription()
        name.name = "name"
        name.attributeType = .stringAttributeType
        name.isOptional = true
        #expect(hex(name.versionHash) == "95fbc4c1911386502d590fc8780df611a28374298d32797165373f91204cbb08")
        // What Apple does not hash leaves it alone; what it hashes changes it.
        let before = name.versionHash
        name.defaultValue = "x"
        name.userInfo = ["note": "ignored"]
        #expect(name.versionHash == before)
        name.type = .integer32
        #expect(name.versionHash != before)
    }

    @Test func aRelationshipsVersionHashIsApplesDigest() throws {
        let country = try #require(MoodyModel.shared.entitiesByName["Mood"]?.relationshipsByName["country"])
        #expect(hex(country.versionHash) == "456c80face4c7f3c26ca41b7a67a57e2c3a05cebdf83d2296adc3ef0c9f7a739")
        #expect(country.versionHash.count == 32)
    }

    @Test func propertyHashesChangeTheEntityHashAsInTheStoreMetadata() throws {
        let model = MoodyModel.make()
        let mood = try #require(model.entitiesByName["Mood"])
        let rating = try #require(mood.attributesByName["rating"])
        let entityBefore = mood.versionHash, ratingBefore = rating.versionHash
        rating.versionHashModifier = "v2"
        #expect(rating.versionHash != ratingBefore)
        #expect(mood.versionHash != entityBefore, "the entity hash is built from its properties' hashes")
    }
}
