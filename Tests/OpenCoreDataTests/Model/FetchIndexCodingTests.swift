import OpenCoreData
import Testing

// NSCoding for NSFetchIndexDescription and NSFetchIndexElementDescription through NSKeyedArchiver.

private func roundTrip<T: NSObject & NSCoding>(_ object: T) throws -> T? {
    let data = try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: false)
    let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
    unarchiver.requiresSecureCoding = false
    defer { unarchiver.finishDecoding() }
    return unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? T
}

@Suite struct FetchIndexCodingTests {
    @Test func anIndexAndItsElementsRoundTripAndAttachByPropertyName() throws {
        let model = MoodyModel.make()
        let mood = try #require(model.entitiesByName["Mood"])
        let date = try #require(mood.attributesByName["date"]), rating = try #require(mood.attributesByName["rating"])
        let byDate = NSFetchIndexElementDescription(property: date, collationType: .binary)
        byDate.isAscending = false
        let byRating = NSFetchIndexElementDescription(property: rating, collationType: .binary)
        let index = NSFetchIndexDescription(name: "byDateAndRating", elements: [byDate, byRating])
        index.partialIndexPredicate = NSPredicate(format: "rating > 0")

        let decodedElement = try #require(try roundTrip(byDate))
        #expect(decodedElement.propertyName == "date" && decodedElement.collationType == .binary && !decodedElement.isAscending)

        let decoded = try #require(try roundTrip(index))
        #expect(decoded.name == "byDateAndRating")
        #expect(decoded.elements.map(\.propertyName) == ["date", "rating"])
        #expect(decoded.elements.map(\.isAscending) == [false, true])
        #expect(decoded.entity == nil)
        #expect(decoded.partialIndexPredicate?.predicateFormat == "rating > 0")
        // Attached to an entity that has the properties, the elements find them by name.
        let copy = MoodyModel.make()
        let copiedMood = try #require(copy.entitiesByName["Mood"])
        copiedMood.indexes = [decoded]
        #expect(decoded.elements.first?.property === copiedMood.attributesByName["date"])
    }

    @Test func aCoderWithoutAnIndexDecodesToNil() throws {
        let data = try NSKeyedArchiver.archivedData(withRootObject: NSString(string: "not an index"), requiringSecureCoding: false)
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = false
        #expect(NSFetchIndexDescription(coder: unarchiver) == nil)
        #expect(NSFetchIndexElementDescription(coder: unarchiver) == nil)
    }
}
