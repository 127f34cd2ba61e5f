import Foundation
import Testing

@testable import OpenCoreData

/// The objc.io Moody model versions 1–6, checked entity by entity against expectations written by hand
/// (from reading the model files and from the hashes Apple's Core Data wrote into the Moody stores), and a
/// Moody model built in code that hashes like the XML.
@Suite("Moody models v1–v6", .enabled(if: Corpus.isAvailable, Corpus.missingMessage))
struct MoodyModelTests {
    static func load(_ version: Int) throws -> NSManagedObjectModel {
        try Corpus.model("objcio__core-data__Moody__Migrations-Moody_\(version).xml")
    }

    /// Entity hashes Apple's Core Data stored in `Moody.moody` … `Moody 5.moody` (framework 637).
    static let appleHashes: [Int: [String: String]] = [
        1: ["Continent": "195eb3f2c5c16adf08c7d7aad5ae09d6e84d4dcf00c9a7fa4157a83879b6b7ab",
            "Country": "2ba027cc056ea4bd998833e904586241e1ee53afb33926c24ee9910d995fb001",
            "GeographicRegion": "c0e025164cb30e0c0736b581b14a9e832c948d9cbd6c58e189370e3c6afd6aa9",
            "Mood": "ed3f4675a939785a66d12c33a16f3180dc1e40469451d4695d4876867cc06c20"],
        2: ["Continent": "195eb3f2c5c16adf08c7d7aad5ae09d6e84d4dcf00c9a7fa4157a83879b6b7ab",
            "Country": "2ba027cc056ea4bd998833e904586241e1ee53afb33926c24ee9910d995fb001",
            "GeographicRegion": "c0e025164cb30e0c0736b581b14a9e832c948d9cbd6c58e189370e3c6afd6aa9",
            "Mood": "4a3711e5576aff0c48420bf1b5580a2bf8cc1d1fac663367235f1e14d2ac72d6"],
        3: ["Continent": "194f5df69715d504997a194d4ac1ba0baacb2a9cb60a2f33858489786115457d",
            "Country": "2ba027cc056ea4bd998833e904586241e1ee53afb33926c24ee9910d995fb001",
            "GeographicRegion": "c0e025164cb30e0c0736b581b14a9e832c948d9cbd6c58e189370e3c6afd6aa9",
            "Mood": "19eed1835b15976d65908fefc82d451845c7694189224aea0f66acd5600cf036"],
        4: ["Continent": "7e7d574bb92dc743cec98cdb90a2325ab2490433b23fb0ba748e5ce24a1be4fb",
            "Country": "4ae137bd92bd0a53b65f2319ed0d350294a01b78ffa8cfa22afcba9816c51724",
            "Mood": "19eed1835b15976d65908fefc82d451845c7694189224aea0f66acd5600cf036"],
        5: ["Country": "db57b9da2f0dc68749199c2528162e9d82b19f6bc7bb23d85754a9128b4625e3",
            "Mood": "4a3711e5576aff0c48420bf1b5580a2bf8cc1d1fac663367235f1e14d2ac72d6"],
    ]

    /// Hand-written structure of each version: entity → (abstract, parent, own attributes "name:type[?]",
    /// own relationships "name→Destination[*]").
    struct EntityShape: Equatable, CustomStringConvertible {
        var abstract = false
        var parent: String? = nil
        var attributes: [String] = []
        var relationships: [String] = []
        var description: String { "abstract \(abstract) parent \(parent ?? "-") attributes \(attributes) relationships \(relationships)" }
    }

    static let region = ["markedForDeletionDate:Date?", "numberOfMoods:Integer 64", "numericISO3166Code:Integer 16", "uniquenessDummy:Integer 16", "updatedAt:Date"]
    static let moodV1 = ["colors:Transformable?", "creatorID:String?", "date:Date", "latitude:Double?", "longitude:Double?", "markedForDeletionDate:Date?", "markedForRemoteDeletion:Boolean"]

    static let shapes: [Int: [String: EntityShape]] = [
        1: ["GeographicRegion": EntityShape(abstract: true, attributes: region),
            "Continent": EntityShape(parent: "GeographicRegion", attributes: ["numberOfCountries:Integer 64"], relationships: ["countries→Country*"]),
            "Country": EntityShape(parent: "GeographicRegion", relationships: ["continent→Continent", "moods→Mood*"]),
            "Mood": EntityShape(attributes: moodV1 + ["remoteIdentifier:String?"], relationships: ["country→Country"])],
        2: ["GeographicRegion": EntityShape(abstract: true, attributes: region),
            "Continent": EntityShape(parent: "GeographicRegion", attributes: ["numberOfCountries:Integer 64"], relationships: ["countries→Country*"]),
            "Country": EntityShape(parent: "GeographicRegion", relationships: ["continent→Continent", "moods→Mood*"]),
            "Mood": EntityShape(attributes: moodV1 + ["rating:Integer 16", "remoteID:String?"], relationships: ["country→Country"])],
        3: ["GeographicRegion": EntityShape(abstract: true, attributes: region),
            "Continent": EntityShape(parent: "GeographicRegion", attributes: ["numberOfCountries:Integer 64"], relationships: ["countries→Country*", "moods→Mood*"]),
            "Country": EntityShape(parent: "GeographicRegion", relationships: ["continent→Continent", "moods→Mood*"]),
            "Mood": EntityShape(attributes: moodV1 + ["rating:Integer 16", "remoteID:String?"], relationships: ["continent→Continent", "country→Country"])],
        4: ["Continent": EntityShape(attributes: ["markedForDeletionDate:Date?", "numberOfCountries:Integer 64", "numberOfMoods:Integer 64", "numericISO3166Code:Integer 16", "uniquenessDummy:Integer 16", "updatedAt:Date"], relationships: ["countries→Country*", "moods→Mood*"]),
            "Country": EntityShape(attributes: region, relationships: ["continent→Continent", "moods→Mood*"]),
            "Mood": EntityShape(attributes: moodV1 + ["rating:Integer 16", "remoteID:String?"], relationships: ["continent→Continent", "country→Country"])],
        5: ["Country": EntityShape(attributes: ["isoContinent:Integer 16?"] + region, relationships: ["moods→Mood*"]),
            "Mood": EntityShape(attributes: moodV1 + ["rating:Integer 16", "remoteID:String?"], relationships: ["country→Country"])],
        6: ["Continent": EntityShape(attributes: ["numericISO3166Code:Integer 16"], relationships: ["countries→Country*"]),
            "Country": EntityShape(attributes: ["markedForDeletionDate:Date?", "numberOfMoods:Integer 64", "numericISO3166Code:Integer 16", "uniquenessDummy:Integer 16", "updatedAt:Date"], relationships: ["continent→Continent", "moods→Mood*"]),
            "Mood": EntityShape(attributes: moodV1 + ["rating:Integer 16", "remoteID:String?"], relationships: ["country→Country"])],
    ]

    static func shape(of entity: NSEntityDescription) -> EntityShape {
        let own = entity.properties.filter { $0.entity === entity }
        return EntityShape(
            abstract: entity.isAbstract,
            parent: entity.superentity?.name,
            attributes: own.compactMap { $0 as? NSAttributeDescription }.map { "\($0.name):\(ModelPrinting.typeName($0.attributeType))\($0.isOptional ? "?" : "")" },
            relationships: own.compactMap { $0 as? NSRelationshipDescription }.map { "\($0.name)→\($0.destinationEntity?.name ?? "?")\($0.isToMany ? "*" : "")" })
    }

    @Test(arguments: 1...6) func structureMatchesHandWrittenExpectations(version: Int) throws {
        let model = try Self.load(version)
        let expected = try #require(Self.shapes[version])
        #expect(Set(model.entitiesByName.keys) == Set(expected.keys))
        for (name, shape) in expected {
            let entity = try #require(model.entitiesByName[name])
            #expect(Self.shape(of: entity) == shape, "Moody \(version) \(name)")
        }
        #expect(model.versionIdentifiers == ["\(version)"])
    }

    @Test(arguments: 1...5) func hashesEqualTheHashesAppleStored(version: Int) throws {
        let model = try Self.load(version)
        let expected = try #require(Self.appleHashes[version])
        let hex = model.entityVersionHashesByName.mapValues { $0.map { String(format: "%02x", $0) }.joined() }
        #expect(hex == expected)
    }

    @Test func renamingIdentifierAndDefaults() throws {
        let model = try Self.load(6)
        let mood = try #require(model.entitiesByName["Mood"])
        #expect(mood.attributesByName["remoteID"]?.renamingIdentifier == "remoteIdentifier")
        #expect(mood.attributesByName["markedForRemoteDeletion"]?.defaultValue as? NSNumber == NSNumber(value: false))
        #expect(mood.attributesByName["rating"]?.defaultValue as? NSNumber == NSNumber(value: 0))
        #expect(mood.attributesByName["colors"]?.valueTransformerName == "ColorsTransformer")
        #expect(mood.compoundIndexes.map { $0.map { "\($0)" } } == [["markedForRemoteDeletion", "markedForDeletionDate", "date"]])
        let country = try #require(model.entitiesByName["Country"])
        #expect(country.uniquenessConstraints.map { $0.map { "\($0)" } } == [["numericISO3166Code", "uniquenessDummy"]])
    }

    /// Moody 6 built in code, the way a user builds a model without Xcode, hashes exactly like the XML.
    @Test func modelBuiltInCodeHashesLikeTheXML() throws {
        let code = MoodyModelInCode.version6()
        let xml = try Self.load(6)
        #expect(code.entityVersionHashesByName == xml.entityVersionHashesByName)
        #expect(code.versionChecksum == xml.versionChecksum)
        // And a code-built Moody 1 hashes like Apple's Moody store.
        let v1 = MoodyModelInCode.version1()
        let hex = v1.entityVersionHashesByName.mapValues { $0.map { String(format: "%02x", $0) }.joined() }
        #expect(hex == Self.appleHashes[1])
    }
}

/// Moody models written in code with Apple's API.
enum MoodyModelInCode {
    static func attribute(_ name: String, _ type: NSAttributeType, optional: Bool = false, default value: Any? = nil) -> NSAttributeDescription {
        let attribute = NSAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        attribute.isOptional = optional
        attribute.defaultValue = value
        return attribute
    }

    static func relationship(_ name: String, to destination: NSEntityDescription, toMany: Bool, optional: Bool = false) -> NSRelationshipDescription {
        let relationship = NSRelationshipDescription()
        relationship.name = name
        relationship.destinationEntity = destination
        relationship.maxCount = toMany ? 0 : 1
        relationship.isOptional = optional
        relationship.deleteRule = .nullifyDeleteRule
        return relationship
    }

    static func entity(_ name: String) -> NSEntityDescription {
        let entity = NSEntityDescription()
        entity.name = name
        return entity
    }

    static func link(_ a: NSRelationshipDescription, _ b: NSRelationshipDescription) {
        a.inverseRelationship = b
        b.inverseRelationship = a
    }

    static func moodAttributes(rating: Bool) -> [NSAttributeDescription] {
        var attributes = [
            attribute("colors", .transformableAttributeType, optional: true),
            attribute("creatorID", .stringAttributeType, optional: true),
            attribute("date", .dateAttributeType),
            attribute("latitude", .doubleAttributeType, optional: true),
            attribute("longitude", .doubleAttributeType, optional: true),
            attribute("markedForDeletionDate", .dateAttributeType, optional: true),
            attribute("markedForRemoteDeletion", .booleanAttributeType, default: false),
        ]
        if rating {
            attributes.append(attribute("rating", .integer16AttributeType, default: 0))
            let remoteID = attribute("remoteID", .stringAttributeType, optional: true)
            remoteID.renamingIdentifier = "remoteIdentifier"
            attributes.append(remoteID)
        } else {
            attributes.append(attribute("remoteIdentifier", .stringAttributeType, optional: true))
        }
        return attributes
    }

    static func version6() -> NSManagedObjectModel {
        let continent = entity("Continent"), country = entity("Country"), mood = entity("Mood")
        let countries = relationship("countries", to: country, toMany: true)
        let countryContinent = relationship("continent", to: continent, toMany: false, optional: true)
        let moods = relationship("moods", to: mood, toMany: true)
        let moodCountry = relationship("country", to: country, toMany: false, optional: true)
        link(countries, countryContinent)
        link(moods, moodCountry)
        continent.properties = [attribute("numericISO3166Code", .integer16AttributeType, default: 0), countries]
        country.properties = [
            attribute("markedForDeletionDate", .dateAttributeType, optional: true),
            attribute("numberOfMoods", .integer64AttributeType, default: 0),
            attribute("numericISO3166Code", .integer16AttributeType, default: 0),
            attribute("uniquenessDummy", .integer16AttributeType, default: 0),
            attribute("updatedAt", .dateAttributeType),
            countryContinent, moods,
        ]
        country.uniquenessConstraints = [["numericISO3166Code", "uniquenessDummy"]]
        mood.properties = moodAttributes(rating: true) + [moodCountry]
        let model = NSManagedObjectModel()
        model.entities = [continent, country, mood]
        model.versionIdentifiers = ["6"]
        return model
    }

    static func version1() -> NSManagedObjectModel {
        let region = entity("GeographicRegion"), continent = entity("Continent"), country = entity("Country"), mood = entity("Mood")
        region.isAbstract = true
        region.properties = [
            attribute("markedForDeletionDate", .dateAttributeType, optional: true),
            attribute("numberOfMoods", .integer64AttributeType, default: 0),
            attribute("numericISO3166Code", .integer16AttributeType, default: 0),
            attribute("uniquenessDummy", .integer16AttributeType, default: 0),
            attribute("updatedAt", .dateAttributeType),
        ]
        region.uniquenessConstraints = [["numericISO3166Code", "uniquenessDummy"]]
        region.subentities = [continent, country]
        let countries = relationship("countries", to: country, toMany: true)
        let countryContinent = relationship("continent", to: continent, toMany: false, optional: true)
        let moods = relationship("moods", to: mood, toMany: true)
        let moodCountry = relationship("country", to: country, toMany: false, optional: true)
        link(countries, countryContinent)
        link(moods, moodCountry)
        continent.properties = [attribute("numberOfCountries", .integer64AttributeType, default: 0), countries]
        country.properties = [countryContinent, moods]
        mood.properties = moodAttributes(rating: false) + [moodCountry]
        let model = NSManagedObjectModel()
        model.entities = [continent, country, region, mood]
        return model
    }
}
