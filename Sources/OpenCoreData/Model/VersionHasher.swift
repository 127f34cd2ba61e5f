/// Computes entity and property version hashes exactly as Apple's Core Data does
/// (store-format.md §12, verified against every hash in the corpus stores).
///
/// All hashes are SHA-256; integers are little-endian; strings are UTF-8 without terminator or length.
enum VersionHasher {
    /// P(p) = SHA256(name ‖ flags:int16 ‖ versionHashModifier?), the base of every property hash.
    static func propertyBaseHash(_ property: NSPropertyDescription) -> [UInt8] {
        var bytes = Array(property._name.utf8)
        append(property.versionHashFlags, to: &bytes)
        if let modifier = property._versionHashModifier { bytes += modifier.utf8 }
        return SHA2.sha256(bytes)
    }

    /// The version hash of any property: A(a) for attributes, R(r) for relationships, P(p) otherwise.
    static func propertyHash(_ property: NSPropertyDescription) -> [UInt8] {
        switch property {
        case let attribute as NSAttributeDescription: return attributeHash(attribute)
        case let relationship as NSRelationshipDescription: return relationshipHash(relationship)
        default: return propertyBaseHash(property)
        }
    }

    /// A(a) = SHA256(P(a) ‖ attributeType:int32 ‖ [0x01 if external storage] ‖ [0x01 if preserved in history]
    /// ‖ [composite elements' hashes]); for a derived attribute SHA256(derivation expression format).
    static func attributeHash(_ attribute: NSAttributeDescription) -> [UInt8] {
        // A derived attribute hashes as SHA256(its derivation expression's predicateFormat) alone — verified on
        // CoreDataPlus SampleModel2 (`pagesCount`, "count:(pages)"), whose stored Book hash nothing else reproduces.
        if let derived = attribute as? NSDerivedAttributeDescription, let expression = derived.derivationExpressionHashText {
            return SHA2.sha256(Array(expression.utf8))
        }
        var bytes = propertyBaseHash(attribute)
        append(Int32(truncatingIfNeeded: attribute._attributeType.rawValue), to: &bytes)
        if attribute._allowsExternalBinaryDataStorage { bytes.append(1) }
        if attribute._preservesValueInHistoryOnDeletion { bytes.append(1) }
        if let composite = attribute as? NSCompositeAttributeDescription {
            for element in composite._elements.sorted(by: { $0._name.utf8.lexicographicallyPrecedes($1._name.utf8) }) {
                bytes += attributeHash(element)
            }
        }
        return SHA2.sha256(bytes)
    }

    /// R(r) = SHA256(P(r) ‖ destinationEntityName ‖ [inverseName] ‖ maxCount:int32 ‖ minCount:int32 ‖ [int16 1 if ordered]).
    static func relationshipHash(_ relationship: NSRelationshipDescription) -> [UInt8] {
        var bytes = propertyBaseHash(relationship)
        bytes += (relationship.destinationEntityName ?? "").utf8
        if let inverse = relationship.inverseRelationshipName, relationship._inverseRelationship !== relationship {
            bytes += inverse.utf8
        }
        append(Int32(truncatingIfNeeded: relationship._maxCount), to: &bytes)
        append(Int32(truncatingIfNeeded: relationship._minCount), to: &bytes)
        if relationship._isOrdered { append(Int16(1), to: &bytes) }
        return SHA2.sha256(bytes)
    }

    /// E(e) = SHA256(name ‖ isAbstract:uint8 ‖ [E(superentity)] ‖ Σ hashes of the stored attributes and
    /// relationships (inherited included) in name order ‖ [versionHashModifier] ‖ Σ the entity's own uniqueness
    /// constraints as "a.b" strings, sorted).
    static func entityHash(_ entity: NSEntityDescription) -> [UInt8] {
        var bytes = Array((entity._name ?? "").utf8)
        bytes.append(entity._isAbstract ? 1 : 0)
        if let superentity = entity._superentity { bytes += superentity.versionHash }
        let stored = entity.properties.filter { property in
            !property._isTransient && (property is NSAttributeDescription || property is NSRelationshipDescription)
        }
        for property in stored.sorted(by: { $0._name.utf8.lexicographicallyPrecedes($1._name.utf8) }) {
            bytes += property.versionHash
        }
        if let modifier = entity._versionHashModifier { bytes += modifier.utf8 }
        let constraints = entity.uniquenessConstraintNames.map { $0.joined(separator: ".") }
            .filter { !$0.isEmpty }
            .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        for constraint in constraints { bytes += constraint.utf8 }
        return SHA2.sha256(bytes)
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }
}

/// The model-identifying digests Core Data writes into store metadata (store-format.md §2.2).
enum ModelDigests {
    /// `NSStoreModelVersionChecksumKey`: base64(SHA-256(the entity hashes concatenated in entity-name order)).
    static func versionChecksum(_ hashes: [String: Data]) -> String {
        var bytes: [UInt8] = []
        for name in sortedNames(hashes) { bytes += hashes[name]! }
        return Data(SHA2.sha256(bytes)).base64EncodedString()
    }

    /// `NSStoreModelVersionHashesDigest`: base64(SHA-512(name ‖ hash, concatenated in entity-name order)).
    static func versionHashesDigest(_ hashes: [String: Data]) -> String {
        var bytes: [UInt8] = []
        for name in sortedNames(hashes) {
            bytes += name.utf8
            bytes += hashes[name]!
        }
        return Data(SHA2.sha512(bytes)).base64EncodedString()
    }

    /// Entity names in byte (ordinal) order, as Core Data sorts them for digests.
    private static func sortedNames(_ hashes: [String: Data]) -> [String] {
        hashes.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }
}
