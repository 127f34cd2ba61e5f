import OpenCoreData
import Testing

// NSCoding for property descriptions through NSKeyedArchiver, as iOS code archives them.

private func roundTrip<T: NSPropertyDescription>(_ property: T) throws -> T? {
    let data = try NSKeyedArchiver.archivedData(withRootObject: property, requiringSecureCoding: false)
    let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
    unarchiver.requiresSecureCoding = false
    defer { unarchiver.finishDecoding() }
    return unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? T
}

@Suite struct PropertyCodingTests {
    @Test func propertiesOfAModelRoundTrip() throws {
        let model = MoodyModel.make()
        let mood = try #require(model.entitiesByName["Mood"])
        let rating = try #require(mood.attributesByName["rating"])
        let decodedRating = try #require(try roundTrip(rating))
        #expect(decodedRating !== rating)
        #expect(decodedRating.name == "rating" && decodedRating.attributeType == .integer16AttributeType)
        #expect(decodedRating.defaultValue as? Int16 == 0)
        #expect(decodedRating.versionHash == rating.versionHash)
        let country = try #require(mood.relationshipsByName["country"])
        let decodedCountry = try #require(try roundTrip(country))
        #expect(decodedCountry.versionHash == country.versionHash, "destination and inverse names, counts and flags survive")
        #expect(decodedCountry.deleteRule == country.deleteRule && !decodedCountry.isToMany)
    }

    @Test func aPropertyOfNoModelRoundTrips() throws {
        let title = NSAttributeDescription()
        title.name = "title"
        title.attributeType = .stringAttributeType
        title.isOptional = false
        title.defaultValue = "untitled"
        let decoded = try #require(try roundTrip(title))
        #expect(decoded.name == "title" && !decoded.isOptional && decoded.defaultValue as? String == "untitled")
        #expect(decoded.versionHash == title.versionHash)

        let owner = NSRelationshipDescription()
        owner.name = "owner"
        owner.destinationEntity = {
            let person = NSEntityDescription()
            person.name = "Person"
            return person
        }()
        owner.maxCount = 1
        let decodedOwner = try #require(try roundTrip(owner))
        #expect(decodedOwner.versionHash == owner.versionHash)
    }

    @Test func anExpressionDescriptionRoundTrips() throws {
        let total = NSExpressionDescription()
        total.name = "total"
        total.expression = NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "rating")])
        total.expressionResultType = .integer64AttributeType
        let decoded = try #require(try roundTrip(total))
        #expect(decoded.name == "total" && decoded.expressionResultType == .integer64AttributeType)
        #expect(decoded.expression == total.expression)
    }

    @Test func aCoderWithoutAPropertyOrOfAnotherKindDecodesToNil() throws {
        let data = try NSKeyedArchiver.archivedData(withRootObject: NSString(string: "not a property"), requiringSecureCoding: false)
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = false
        #expect(NSPropertyDescription(coder: unarchiver) == nil)
        // An attribute's archive read as a relationship.
        let title = NSAttributeDescription()
        title.name = "title"
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        title.encode(with: archiver)
        archiver.finishEncoding()
        let attributeCoder = try NSKeyedUnarchiver(forReadingFrom: archiver.encodedData)
        attributeCoder.requiresSecureCoding = false
        #expect(NSRelationshipDescription(coder: attributeCoder) == nil)
        #expect(NSAttributeDescription(coder: attributeCoder)?.name == "title")
    }
}
