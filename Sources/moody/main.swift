// The objc.io book's Moody app as a terminal program. For now it loads the Moody model — shipped as an
// Xcode `.xcdatamodeld` resource — and prints its entities, properties and version hashes; later layers
// grow it into the full guided tour.
import OpenCoreData

guard let modelURL = Bundle.module.url(forResource: "Moody", withExtension: "xcdatamodeld") else {
    FileHandle.standardError.write(Data("moody: the Moody.xcdatamodeld resource is missing\n".utf8))
    exit(1)
}

let model: NSManagedObjectModel
do {
    model = try NSManagedObjectModel(validatingContentsOf: modelURL)
} catch {
    FileHandle.standardError.write(Data("moody: \(error.localizedDescription)\n".utf8))
    exit(1)
}

/// The first 8 bytes of a hash in hex, enough to tell versions apart on screen.
func short(_ hash: Data) -> String { hash.prefix(8).map { String(format: "%02x", $0) }.joined() + "…" }

/// A one-line summary of a property.
func describe(_ property: NSPropertyDescription) -> String {
    var words: [String] = []
    switch property {
    case let attribute as NSAttributeDescription:
        words.append("attribute  \(ModelPrinting.typeName(attribute.attributeType))")
        if let value = attribute.defaultValue { words.append("default \(value)") }
    case let relationship as NSRelationshipDescription:
        let cardinality = relationship.isToMany ? (relationship.isOrdered ? "to-many ordered" : "to-many") : "to-one"
        words.append("relationship \(cardinality) → \(relationship.destinationEntity?.name ?? "?")")
        if let inverse = relationship.inverseRelationship { words.append("inverse \(inverse.name)") }
    default:
        words.append("fetched property")
    }
    if property.isOptional { words.append("optional") }
    if property.isTransient { words.append("transient") }
    return words.joined(separator: ", ")
}

let versions = (try? NSManagedObjectModel.versionNames(ofModelAt: modelURL)) ?? []
print("Moody model: \(modelURL.lastPathComponent), versions \(versions.joined(separator: ", ")), identifiers \(model.versionIdentifiers.map { "\($0)" }.sorted())")
print("Version checksum: \(model.versionChecksum)")
for entity in model.entities.sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) {
    var header = "\nentity \(entity.name ?? "?")"
    if entity.isAbstract { header += " (abstract)" }
    if let parent = entity.superentity?.name { header += " : \(parent)" }
    print(header + "   version hash \(short(entity.versionHash))")
    for property in entity.properties {
        let inherited = property.entity !== entity ? " (inherited)" : ""
        print("  \(property.name.padding(toLength: 24, withPad: " ", startingAt: 0)) \(describe(property))\(inherited)")
    }
    for constraint in entity.uniquenessConstraints {
        print("  unique (\(constraint.map { "\($0)" }.joined(separator: ", ")))")
    }
}
