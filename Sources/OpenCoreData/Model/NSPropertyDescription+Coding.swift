// NSCoding for property descriptions. An entity's property (attribute, relationship, fetched property) archives as
// the compiled-model archive of its model — or, when it belongs to no model, of a model holding a copy of it (and an
// empty entity named as a relationship's destination) — with its entity's and its own name, like an entity
// (NSManagedObjectModel+Coding.swift). An expression description, which no entity holds, archives as its name, its
// expression's format and its result type.

/// The keys under which properties archive (besides the model keys).
private enum PropertyCodingKeys {
    static let propertyName = "NSPropertyName"
    static let expressionFormat = "NSExpressionFormat"
    static let expressionResultType = "NSExpressionResultType"
    /// The entity that holds a property archived without a model of its own.
    static let holderEntityName = "NSPropertyArchiveHolder"
}

extension NSPropertyDescription: NSCoding {
    /// Archives the property: see `init?(coder:)`. A property that cannot be compiled stops the program with the
    /// reason, as for a model.
    ///
    /// ```swift
    /// let data = try NSKeyedArchiver.archivedData(withRootObject: attribute, requiringSecureCoding: false)
    /// ```
    public func encode(with coder: NSCoder) {
        coder.encode(NSString(string: _name), forKey: PropertyCodingKeys.propertyName)
        if let expressionDescription = self as? NSExpressionDescription {
            if let format = expressionDescription.expression?.description {
                coder.encode(NSString(string: format), forKey: PropertyCodingKeys.expressionFormat)
            }
            coder.encode(Int64(expressionDescription.expressionResultType.rawValue), forKey: PropertyCodingKeys.expressionResultType)
            return
        }
        let model: NSManagedObjectModel
        let entityName: String
        if let entity = owningEntity, let owner = entity.owningModel, let name = entity.name {
            model = owner
            entityName = name
        } else {
            let holder = NSEntityDescription()
            holder.name = PropertyCodingKeys.holderEntityName
            holder.properties = [copy() as! NSPropertyDescription]
            var entities = [holder]
            if let relationship = self as? NSRelationshipDescription, let destination = relationship.destinationEntityName,
               destination != PropertyCodingKeys.holderEntityName {
                let placeholder = NSEntityDescription()
                placeholder.name = destination
                entities.append(placeholder)
            }
            model = NSManagedObjectModel()
            model.entities = entities
            entityName = PropertyCodingKeys.holderEntityName
        }
        coder.encode(ModelCodingKeys.compiledArchive(of: model) as NSData, forKey: ModelCodingKeys.compiledModel)
        coder.encode(NSString(string: entityName), forKey: ModelCodingKeys.entityName)
    }

    /// The property in a coder written by `encode(with:)`, or nil.
    static func decodedProperty(from coder: NSCoder) -> NSPropertyDescription? {
        // Linux Foundation's unarchiver stops the process when asked for a key it does not have: ask first.
        func string(_ key: String) -> String? {
            guard coder.containsValue(forKey: key) else { return nil }
            let value = coder.decodeObject(forKey: key)
            return (value as? String) ?? (value as? NSString).map { String($0) }
        }
        guard let name = string(PropertyCodingKeys.propertyName) else { return nil }
        if coder.containsValue(forKey: PropertyCodingKeys.expressionResultType) {
            let expressionDescription = NSExpressionDescription()
            expressionDescription.name = name
            expressionDescription.expressionResultType = NSAttributeType(rawValue: UInt(clamping: coder.decodeInt64(forKey: PropertyCodingKeys.expressionResultType)))
                ?? .undefinedAttributeType
            if let format = string(PropertyCodingKeys.expressionFormat) {
                guard let expression = try? PredicateParser.parseExpression(format, arguments: .array([])) else { return nil }
                expressionDescription.expression = expression
            }
            return expressionDescription
        }
        guard let entity = NSEntityDescription.decodedEntity(from: coder) else { return nil }
        return entity.propertiesByName[name]
    }
}
