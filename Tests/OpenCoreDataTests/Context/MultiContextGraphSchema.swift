import Foundation

@testable import OpenCoreData

/// The model of the multi-context graph test, built in code: `Owner` and `Member` (each with an `id` the test gives
/// and a `value`), and four relationships between them, every rule nullify:
/// - `Member.owner` ↔ `Owner.members`: one-to-many, unordered;
/// - `Member.list` ↔ `Owner.entries`: one-to-many, ordered;
/// - `Member.groups` ↔ `Owner.groupMembers`: many-to-many, unordered;
/// - `Member.playlists` ↔ `Owner.playlist`: many-to-many, ordered on the owner's side.
enum MultiContextGraphSchema {
    static let model: NSManagedObjectModel = make()

    /// The relationships of each entity, with whether they are to-many and ordered.
    static let memberRelationships: [(name: String, toMany: Bool, ordered: Bool)] = [
        ("owner", false, false), ("list", false, false), ("groups", true, false), ("playlists", true, false),
    ]
    static let ownerRelationships: [(name: String, toMany: Bool, ordered: Bool)] = [
        ("members", true, false), ("entries", true, true), ("groupMembers", true, false), ("playlist", true, true),
    ]

    private static func make() -> NSManagedObjectModel {
        let owner = NSEntityDescription(), member = NSEntityDescription()
        owner.name = "Owner"
        member.name = "Member"
        owner.managedObjectClassName = "NSManagedObject"
        member.managedObjectClassName = "NSManagedObject"
        func relationship(_ name: String, to destination: NSEntityDescription, toMany: Bool, ordered: Bool = false) -> NSRelationshipDescription {
            let relationship = NSRelationshipDescription()
            relationship.name = name
            relationship.destinationEntity = destination
            relationship.maxCount = toMany ? 0 : 1
            relationship.isOrdered = ordered
            relationship.isOptional = true
            relationship.deleteRule = .nullifyDeleteRule
            return relationship
        }
        func pair(_ a: NSRelationshipDescription, _ b: NSRelationshipDescription) -> [NSRelationshipDescription] {
            a.inverseRelationship = b
            b.inverseRelationship = a
            return [a, b]
        }
        let ownerPair = pair(relationship("owner", to: owner, toMany: false), relationship("members", to: member, toMany: true))
        let listPair = pair(relationship("list", to: owner, toMany: false), relationship("entries", to: member, toMany: true, ordered: true))
        let groupPair = pair(relationship("groups", to: owner, toMany: true), relationship("groupMembers", to: member, toMany: true))
        let playlistPair = pair(relationship("playlists", to: owner, toMany: true), relationship("playlist", to: member, toMany: true, ordered: true))
        func attributes() -> [NSAttributeDescription] {
            ["id", "value"].map { name in
                let attribute = NSAttributeDescription()
                attribute.name = name
                attribute.attributeType = .integer64AttributeType
                attribute.isOptional = true
                return attribute
            }
        }
        member.properties = attributes() + [ownerPair[0], listPair[0], groupPair[0], playlistPair[0]]
        owner.properties = attributes() + [ownerPair[1], listPair[1], groupPair[1], playlistPair[1]]
        let model = NSManagedObjectModel()
        model.entities = [owner, member]
        return model
    }
}
