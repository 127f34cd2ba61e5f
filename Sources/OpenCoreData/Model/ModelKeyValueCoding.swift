// Key-value coding on model descriptions, as every Objective-C object has it on Apple platforms: predicates read
// descriptions through key paths, above all a fetched property's own `$FETCHED_PROPERTY.userInfo.search`.

extension NSPropertyDescription: KeyValueCoding {
    /// The value of one of the description's properties by its Objective-C name (`name`, `userInfo`, `optional` or
    /// `isOptional`, `entity`, …, and the keys of attributes, relationships and fetched properties); nil for a key
    /// the description does not have. Numbers and Booleans are `NSNumber`s.
    ///
    /// ```swift
    /// property.value(forKey: "userInfo")                              // ["search": "tea"]
    /// NSExpression(format: "$FETCHED_PROPERTY.userInfo.search")       // "tea" in a fetched property's predicate
    /// ```
    public func value(forKey key: String) -> Any? {
        switch key {
        case "name": return name
        case "userInfo": return userInfo
        case "entity": return owningEntity
        case "optional", "isOptional": return NSNumber(value: isOptional)
        case "transient", "isTransient": return NSNumber(value: isTransient)
        case "indexed", "isIndexed": return NSNumber(value: isIndexed)
        case "versionHashModifier": return versionHashModifier
        case "renamingIdentifier": return renamingIdentifier
        case "versionHash": return versionHash
        default: break
        }
        switch self {
        case let attribute as NSAttributeDescription:
            switch key {
            case "attributeType": return NSNumber(value: attribute.attributeType.rawValue)
            case "attributeValueClassName": return attribute.attributeValueClassName
            case "defaultValue": return attribute.defaultValue
            case "valueTransformerName": return attribute.valueTransformerName
            case "allowsExternalBinaryDataStorage": return NSNumber(value: attribute.allowsExternalBinaryDataStorage)
            default: return nil
            }
        case let relationship as NSRelationshipDescription:
            switch key {
            case "destinationEntity": return relationship.destinationEntity
            case "inverseRelationship": return relationship.inverseRelationship
            case "minCount": return NSNumber(value: relationship.minCount)
            case "maxCount": return NSNumber(value: relationship.maxCount)
            case "deleteRule": return NSNumber(value: relationship.deleteRule.rawValue)
            case "toMany", "isToMany": return NSNumber(value: relationship.isToMany)
            case "ordered", "isOrdered": return NSNumber(value: relationship.isOrdered)
            default: return nil
            }
        case let fetched as NSFetchedPropertyDescription:
            return key == "fetchRequest" ? fetched.fetchRequest : nil
        default:
            return nil
        }
    }
}

extension NSEntityDescription: KeyValueCoding {
    /// The value of one of the entity's properties by its Objective-C name (`name`, `userInfo`,
    /// `managedObjectClassName`, `abstract` or `isAbstract`, `superentity`, `subentities`, `properties`, …); nil for a
    /// key the entity does not have.
    ///
    /// ```swift
    /// entity.value(forKeyPath: "userInfo.table")   // "moods"
    /// ```
    public func value(forKey key: String) -> Any? {
        switch key {
        case "name": return name
        case "userInfo": return userInfo
        case "managedObjectClassName": return managedObjectClassName
        case "abstract", "isAbstract": return NSNumber(value: isAbstract)
        case "superentity": return superentity
        case "subentities": return subentities
        case "properties": return properties
        case "propertiesByName": return propertiesByName
        case "attributesByName": return attributesByName
        case "relationshipsByName": return relationshipsByName
        case "versionHashModifier": return versionHashModifier
        case "renamingIdentifier": return renamingIdentifier
        case "versionHash": return versionHash
        default: return nil
        }
    }
}
