/// Reads the XML `contents` file of an Xcode `.xcdatamodel` package into an `NSManagedObjectModel`, both the
/// current format and the older one with an `<elements>` layout section, the way Xcode's model compiler does:
/// model-editor validation settings become validation predicates with Apple's warning codes, default value
/// strings become typed values, names are resolved into inheritance and relationship links.
///
/// Every problem is a thrown `NSError` (see `ModelFileError`) naming the file, the element and the problem.
struct XCDataModelReader {
    /// The `contents` file (for messages).
    let url: URL

    typealias Element = XMLTree.Element

    /// Parses `data` into a model.
    func read(_ data: Data) throws -> NSManagedObjectModel {
        let tree: XMLTree
        do {
            tree = try XMLTree(data: data)
        } catch {
            throw ModelFileError.make(url, line: error.line, "malformed XML (line \(error.line), column \(error.column)): \(error.message)")
        }
        let root = tree.root
        guard root.name == "model" else {
            throw ModelFileError.make(url, line: root.line, "the document element is <\(root.name)>, expected <model>")
        }
        let model = NSManagedObjectModel()
        model.sourceURL = url
        if let identifier = root["userDefinedModelVersionIdentifier"] {
            model._versionIdentifiers = [identifier]
        }

        let composites = try readComposites(root)
        var entities: [NSEntityDescription] = []
        var entityElements: [String: Element] = [:]
        for element in root.children(named: "entity") {
            let entity = try readEntity(element, composites: composites)
            let name = entity._name!
            guard entityElements[name] == nil else {
                throw ModelFileError.make(url, element: "entity '\(name)'", line: element.line, "an entity with this name already exists (line \(entityElements[name]!.line))")
            }
            entityElements[name] = element
            entities.append(entity)
        }
        let byName = Dictionary(uniqueKeysWithValues: entities.map { ($0._name!, $0) })
        try linkInheritance(entities, byName: byName, elements: entityElements)
        model.entities = entities
        try checkPropertyNames(entities, elements: entityElements)
        try linkRelationships(entities, byName: byName, elements: entityElements)
        try checkConstraintsAndIndexes(entities, elements: entityElements)
        model._fetchRequestTemplates = try root.children(named: "fetchRequest").map { try readFetchRequest($0, byName: byName) }
        model._configurations = try root.children(named: "configuration").map { try readConfiguration($0, byName: byName) }
        return model
    }

    // MARK: Entities

    private func readEntity(_ element: Element, composites: [String: [NSAttributeDescription]]) throws -> NSEntityDescription {
        guard let name = element["name"], !name.isEmpty else {
            throw ModelFileError.make(url, element: "<entity>", line: element.line, "the entity has no name")
        }
        let entity = NSEntityDescription()
        entity._name = name
        entity._managedObjectClassName = element["representedClassName"] ?? "NSManagedObject"
        entity._isAbstract = try bool(element, "isAbstract", in: "entity '\(name)'")
        entity._versionHashModifier = element["versionHashModifier"]
        entity._renamingIdentifier = element["elementID"]
        entity._userInfo = readUserInfo(element)
        var properties: [NSPropertyDescription] = []
        var compoundIndexes: [[Any]] = []
        var constraints: [[Any]] = []
        var indexes: [NSFetchIndexDescription] = []
        for child in element.children {
            switch child.name {
            case "attribute": properties.append(try readAttribute(child, entityName: name, composites: composites))
            case "relationship": properties.append(try readRelationship(child, entityName: name))
            case "fetchedProperty": properties.append(try readFetchedProperty(child, entityName: name))
            case "compoundIndexes":
                for index in child.children(named: "compoundIndex") {
                    compoundIndexes.append(index.children(named: "index").compactMap { $0["value"] })
                }
            case "uniquenessConstraints":
                for constraint in child.children(named: "uniquenessConstraint") {
                    constraints.append(constraint.children(named: "constraint").compactMap { $0["value"] })
                }
            case "fetchIndex": indexes.append(try readFetchIndex(child, entityName: name))
            default: continue  // userInfo (read above) and editor-only elements
            }
        }
        var seen: [String: Int] = [:]
        for (property, child) in zip(properties, element.children.filter { ["attribute", "relationship", "fetchedProperty"].contains($0.name) }) {
            if let firstLine = seen[property._name] {
                throw ModelFileError.make(url, element: "entity '\(name)'", line: child.line, "two properties are named '\(property._name)' (lines \(firstLine) and \(child.line))")
            }
            seen[property._name] = child.line
        }
        entity.properties = properties
        entity._compoundIndexes = compoundIndexes
        entity._uniquenessConstraints = constraints
        entity.indexes = indexes
        return entity
    }

    private func readUserInfo(_ element: Element) -> [AnyHashable: Any]? {
        guard let userInfo = element.child(named: "userInfo") else { return nil }
        var result: [AnyHashable: Any] = [:]
        for entry in userInfo.children(named: "entry") {
            if let key = entry["key"] { result[key] = entry["value"] ?? "" }
        }
        return result
    }

    // MARK: Attributes

    /// The XML spellings of attribute types.
    static let attributeTypes: [String: NSAttributeType] = [
        "Undefined": .undefinedAttributeType, "Integer 16": .integer16AttributeType,
        "Integer 32": .integer32AttributeType, "Integer 64": .integer64AttributeType,
        "Decimal": .decimalAttributeType, "Double": .doubleAttributeType, "Float": .floatAttributeType,
        "String": .stringAttributeType, "Boolean": .booleanAttributeType, "Date": .dateAttributeType,
        "Binary": .binaryDataAttributeType, "UUID": .UUIDAttributeType, "URI": .URIAttributeType,
        "Transformable": .transformableAttributeType, "ObjectID": .objectIDAttributeType,
        "Composite": .compositeAttributeType,
    ]

    private func readAttribute(_ element: Element, entityName: String, composites: [String: [NSAttributeDescription]]) throws -> NSAttributeDescription {
        guard let name = element["name"], !name.isEmpty else {
            throw ModelFileError.make(url, element: "entity '\(entityName)'", line: element.line, "an attribute has no name")
        }
        let what = "attribute '\(name)' of entity '\(entityName)'"
        // Xcode omits attributeType for "Undefined", which only transient attributes may use.
        let typeName = element["attributeType"] ?? "Undefined"
        guard let type = Self.attributeTypes[typeName] else {
            let known = Self.attributeTypes.keys.sorted().joined(separator: ", ")
            throw ModelFileError.make(url, element: what, line: element.line, "unknown attributeType '\(typeName)' (expected one of: \(known))")
        }
        let attribute: NSAttributeDescription
        if try bool(element, "derived", in: what) {
            let derived = NSDerivedAttributeDescription()
            guard let expression = element["derivationExpression"], !expression.isEmpty else {
                throw ModelFileError.make(url, element: what, line: element.line, "a derived attribute needs a derivationExpression")
            }
            do {
                _ = try NSExpression(validatingFormat: expression, argumentArray: nil)
            } catch {
                throw ModelFileError.make(url, element: what, line: element.line, "derivationExpression '\(expression)' is not a valid expression: \(error.localizedDescription)")
            }
            derived._derivationExpressionFormat = expression
            attribute = derived
        } else if type == .compositeAttributeType {
            guard let compositeName = element["composite"], let elements = composites[compositeName] else {
                throw ModelFileError.make(url, element: what, line: element.line, "unknown composite '\(element["composite"] ?? "")'")
            }
            let composite = NSCompositeAttributeDescription()
            composite._elements = elements.map { $0.copy() as! NSAttributeDescription }
            attribute = composite
        } else {
            attribute = NSAttributeDescription()
        }
        attribute._name = name
        attribute._attributeType = type
        attribute._attributeValueClassName = element["customClassName"] ?? type.defaultValueClassName
        attribute._isOptional = try bool(element, "optional", in: what)
        attribute._isTransient = try bool(element, "transient", in: what)
        if type == .undefinedAttributeType && !attribute._isTransient {
            throw ModelFileError.make(url, element: what, line: element.line, "only transient attributes may have an undefined type")
        }
        attribute._isIndexed = try bool(element, "indexed", in: what)
        attribute._isIndexedBySpotlight = try bool(element, "spotlightIndexingEnabled", in: what)
        attribute._isStoredInExternalRecord = try bool(element, "storedInTruthFile", in: what)
        attribute._allowsExternalBinaryDataStorage = try bool(element, "allowsExternalBinaryDataStorage", in: what)
        attribute._preservesValueInHistoryOnDeletion = try bool(element, "preserveAfterDeletion", in: what)
        attribute._allowsCloudEncryption = try bool(element, "allowsCloudEncryption", in: what)
        attribute._versionHashModifier = element["versionHashModifier"]
        attribute._renamingIdentifier = element["elementID"]
        attribute._valueTransformerName = element["valueTransformerName"]
        attribute._userInfo = readUserInfo(element)
        attribute._defaultValue = try defaultValue(element, type: type, what: what)
        attribute._validationRules = try validationRules(element, type: type, what: what)
        return attribute
    }

    private func readComposites(_ root: Element) throws -> [String: [NSAttributeDescription]] {
        var composites: [String: [NSAttributeDescription]] = [:]
        for element in root.children(named: "composite") {
            guard let name = element["name"], !name.isEmpty else {
                throw ModelFileError.make(url, element: "<composite>", line: element.line, "the composite has no name")
            }
            composites[name] = try element.children(named: "attribute").map {
                try readAttribute($0, entityName: "composite \(name)", composites: [:])
            }
        }
        return composites
    }

    /// The typed default value of an attribute (`NSNumber` for numbers and booleans, as Apple's).
    private func defaultValue(_ element: Element, type: NSAttributeType, what: String) throws -> Any? {
        if type == .dateAttributeType, let interval = element["defaultDateTimeInterval"] {
            guard let seconds = Double(interval) else {
                throw ModelFileError.make(url, element: what, line: element.line, "defaultDateTimeInterval '\(interval)' is not a number")
            }
            return Date(timeIntervalSinceReferenceDate: seconds)
        }
        guard let text = element["defaultValueString"] else { return nil }
        func invalid() -> Error {
            ModelFileError.make(url, element: what, line: element.line, "defaultValueString '\(text)' is not a valid \(type) value")
        }
        switch type {
        // Xcode's model compiler reads default strings the way NSString's integerValue, doubleValue and
        // boolValue do: the longest numeric prefix, 0 if there is none ("NO" on an integer attribute is 0).
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            return NSNumber(value: LenientNumberParsing.integerPrefix(text))
        case .doubleAttributeType:
            return NSNumber(value: LenientNumberParsing.doublePrefix(text))
        case .floatAttributeType:
            return NSNumber(value: Float(LenientNumberParsing.doublePrefix(text)))
        case .decimalAttributeType:
            let decimal = Decimal(string: text.trimmingCharacters(in: .whitespaces), locale: Locale(identifier: "en_US_POSIX"))
            return NSDecimalNumber(decimal: decimal ?? Decimal(LenientNumberParsing.doublePrefix(text)))
        case .booleanAttributeType:
            return NSNumber(value: LenientNumberParsing.boolValue(text))
        case .stringAttributeType:
            return text
        case .UUIDAttributeType:
            guard let uuid = UUID(uuidString: text) else { throw invalid() }
            return uuid
        case .URIAttributeType:
            guard let uri = URL(string: text) else { throw invalid() }
            return uri
        default:
            return nil  // binary, transformable and others have no textual default
        }
    }

    /// The model editor's validation settings as Xcode's model compiler turns them into validation predicates
    /// and warnings: numbers `SELF >= min` / `SELF <= max`, strings `length >= min` / `length <= max` and
    /// `SELF MATCHES regex`, dates `SELF >= CAST(min, "NSDate")` / `SELF <= CAST(max, "NSDate")`.
    private func validationRules(_ element: Element, type: NSAttributeType, what: String) throws -> [ValidationRule] {
        var rules: [ValidationRule] = []
        func number(_ key: String) throws -> NSNumber? {
            guard let text = element[key]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
            if let integer = Int64(text) { return NSNumber(value: integer) }
            guard let double = Double(text) else {
                throw ModelFileError.make(url, element: what, line: element.line, "\(key) '\(text)' is not a number")
            }
            return NSNumber(value: double)
        }
        func rule(_ left: NSExpression, _ type: NSComparisonPredicate.Operator, _ constant: Any, _ code: Int) -> ValidationRule {
            let predicate = NSComparisonPredicate(leftExpression: left, rightExpression: NSExpression(forConstantValue: constant),
                                                  modifier: .direct, type: type, options: [])
            return ValidationRule(predicate: predicate, warning: NSNumber(value: code))
        }
        let value = NSExpression.expressionForEvaluatedObject()
        let length = NSExpression(forKeyPath: "length")
        switch type {
        case _ where type.isNumeric && type != .booleanAttributeType:
            if let min = try number("minValueString") { rules.append(rule(value, .greaterThanOrEqualTo, min, NSValidationNumberTooSmallError)) }
            if let max = try number("maxValueString") { rules.append(rule(value, .lessThanOrEqualTo, max, NSValidationNumberTooLargeError)) }
        case .stringAttributeType:
            if let min = try number("minValueString") { rules.append(rule(length, .greaterThanOrEqualTo, min, NSValidationStringTooShortError)) }
            if let max = try number("maxValueString") { rules.append(rule(length, .lessThanOrEqualTo, max, NSValidationStringTooLongError)) }
            if let pattern = element["regularExpressionString"], !pattern.isEmpty {
                if (try? NSRegularExpression(pattern: pattern)) == nil {
                    throw ModelFileError.make(url, element: what, line: element.line, "regularExpressionString '\(pattern)' is not a valid regular expression")
                }
                rules.append(rule(value, .matches, pattern, NSValidationStringPatternMatchingError))
            }
        case .dateAttributeType:
            if let min = try number("minDateTimeInterval") {
                rules.append(rule(value, .greaterThanOrEqualTo, Date(timeIntervalSinceReferenceDate: min.doubleValue), NSValidationDateTooSoonError))
            }
            if let max = try number("maxDateTimeInterval") {
                rules.append(rule(value, .lessThanOrEqualTo, Date(timeIntervalSinceReferenceDate: max.doubleValue), NSValidationDateTooLateError))
            }
        default:
            break
        }
        return rules
    }

    // MARK: Relationships and fetched properties

    /// The XML spellings of delete rules.
    static let deleteRules: [String: NSDeleteRule] = [
        "Nullify": .nullifyDeleteRule, "Cascade": .cascadeDeleteRule, "Deny": .denyDeleteRule, "No Action": .noActionDeleteRule,
    ]

    private func readRelationship(_ element: Element, entityName: String) throws -> NSRelationshipDescription {
        guard let name = element["name"], !name.isEmpty else {
            throw ModelFileError.make(url, element: "entity '\(entityName)'", line: element.line, "a relationship has no name")
        }
        let what = "relationship '\(name)' of entity '\(entityName)'"
        let relationship = NSRelationshipDescription()
        relationship._name = name
        relationship._isOptional = try bool(element, "optional", in: what)
        relationship._isTransient = try bool(element, "transient", in: what)
        relationship._isOrdered = try bool(element, "ordered", in: what)
        relationship._versionHashModifier = element["versionHashModifier"]
        relationship._renamingIdentifier = element["elementID"]
        relationship._userInfo = readUserInfo(element)
        let toMany = try bool(element, "toMany", in: what)
        relationship._maxCount = try integer(element, "maxCount", in: what) ?? (toMany ? 0 : 1)
        if toMany && relationship._maxCount == 1 {
            throw ModelFileError.make(url, element: what, line: element.line, "a to-many relationship cannot have maxCount 1")
        }
        relationship._minCount = try integer(element, "minCount", in: what) ?? 0
        if let rule = element["deletionRule"] {
            guard let deleteRule = Self.deleteRules[rule] else {
                throw ModelFileError.make(url, element: what, line: element.line, "unknown deletionRule '\(rule)' (expected Nullify, Cascade, Deny or No Action)")
            }
            relationship._deleteRule = deleteRule
        }
        guard let destination = element["destinationEntity"], !destination.isEmpty else {
            throw ModelFileError.make(url, element: what, line: element.line, "the relationship has no destinationEntity")
        }
        relationship._destinationEntityName = destination
        relationship._inverseRelationshipName = element["inverseName"]
        if let inverseEntity = element["inverseEntity"], inverseEntity != destination {
            throw ModelFileError.make(url, element: what, line: element.line, "inverseEntity '\(inverseEntity)' is not the destination entity '\(destination)'")
        }
        return relationship
    }

    private func readFetchedProperty(_ element: Element, entityName: String) throws -> NSFetchedPropertyDescription {
        guard let name = element["name"], !name.isEmpty else {
            throw ModelFileError.make(url, element: "entity '\(entityName)'", line: element.line, "a fetched property has no name")
        }
        let what = "fetched property '\(name)' of entity '\(entityName)'"
        let property = NSFetchedPropertyDescription()
        property._name = name
        property._isOptional = try bool(element, "optional", in: what)
        property._userInfo = readUserInfo(element)
        if let request = element.child(named: "fetchRequest") {
            property._fetchRequestEntityName = request["entity"]
            property._fetchRequestPredicateFormat = try checkedPredicate(request["predicateString"], what: what, line: request.line)
        }
        return property
    }

    private func readFetchIndex(_ element: Element, entityName: String) throws -> NSFetchIndexDescription {
        guard let name = element["name"], !name.isEmpty else {
            throw ModelFileError.make(url, element: "entity '\(entityName)'", line: element.line, "a fetch index has no name")
        }
        let what = "fetch index '\(name)' of entity '\(entityName)'"
        var elements: [NSFetchIndexElementDescription] = []
        for child in element.children(named: "fetchIndexElement") {
            guard let property = child["property"] else {
                throw ModelFileError.make(url, element: what, line: child.line, "expression index elements are not supported; name a property")
            }
            let collation: NSFetchIndexElementType
            switch child["type"] ?? "Binary" {
            case "Binary": collation = .binary
            case "RTree", "R-Tree": collation = .rTree
            case let other: throw ModelFileError.make(url, element: what, line: child.line, "unknown index element type '\(other)'")
            }
            let indexElement = NSFetchIndexElementDescription(propertyName: property, collationType: collation)
            indexElement._isAscending = (child["order"] ?? "ascending") != "descending"
            elements.append(indexElement)
        }
        let index = NSFetchIndexDescription(name: name, elements: elements)
        index._partialIndexPredicateFormat = element["partialIndexExpression"] ?? element["partialIndexPredicate"]
        return index
    }

    // MARK: Linking

    private func linkInheritance(_ entities: [NSEntityDescription], byName: [String: NSEntityDescription], elements: [String: Element]) throws {
        var children: [String: [NSEntityDescription]] = [:]
        for entity in entities {
            let element = elements[entity._name!]!
            guard let parent = element["parentEntity"] else { continue }
            guard byName[parent] != nil else {
                throw ModelFileError.make(url, element: "entity '\(entity._name!)'", line: element.line, "unknown parentEntity '\(parent)'")
            }
            children[parent, default: []].append(entity)
        }
        for entity in entities {
            var visited: [String] = [entity._name!]
            var current = elements[entity._name!]!["parentEntity"]
            while let parent = current {
                if visited.contains(parent) {
                    throw ModelFileError.make(url, element: "entity '\(entity._name!)'", line: elements[entity._name!]!.line,
                                              "inheritance cycle: \((visited + [parent]).joined(separator: " → "))")
                }
                visited.append(parent)
                current = elements[parent]?["parentEntity"]
            }
        }
        for (parent, subentities) in children { byName[parent]!.subentities = subentities }
    }

    private func checkPropertyNames(_ entities: [NSEntityDescription], elements: [String: Element]) throws {
        for entity in entities {
            guard let parent = entity._superentity else { continue }
            let inherited = parent.propertiesByName
            for property in entity._ownProperties where inherited[property._name] != nil {
                throw ModelFileError.make(url, element: "entity '\(entity._name!)'", line: elements[entity._name!]!.line,
                                          "property '\(property._name)' is already declared by super-entity '\(inherited[property._name]!.entity._name ?? "?")'")
            }
        }
    }

    private func linkRelationships(_ entities: [NSEntityDescription], byName: [String: NSEntityDescription], elements: [String: Element]) throws {
        for entity in entities {
            for case let relationship as NSRelationshipDescription in entity._ownProperties {
                let what = "relationship '\(relationship._name)' of entity '\(entity._name!)'"
                let line = elements[entity._name!]!.line
                guard let destination = byName[relationship._destinationEntityName!] else {
                    throw ModelFileError.make(url, element: what, line: line, "unknown destinationEntity '\(relationship._destinationEntityName!)'")
                }
                relationship._destinationEntity = destination
                if let inverseName = relationship._inverseRelationshipName {
                    guard let inverse = destination.relationshipsByName[inverseName] else {
                        throw ModelFileError.make(url, element: what, line: line, "the inverse relationship '\(inverseName)' does not exist in entity '\(destination._name!)'")
                    }
                    relationship._inverseRelationship = inverse
                }
            }
        }
    }

    private func checkConstraintsAndIndexes(_ entities: [NSEntityDescription], elements: [String: Element]) throws {
        for entity in entities {
            let properties = entity.propertiesByName
            let line = elements[entity._name!]!.line
            for constraint in entity.uniquenessConstraintNames {
                for name in constraint where properties[name] == nil {
                    throw ModelFileError.make(url, element: "entity '\(entity._name!)'", line: line, "uniqueness constraint names unknown property '\(name)'")
                }
            }
            for index in entity._indexes {
                for element in index._elements where properties[element.propertyName ?? ""] == nil {
                    throw ModelFileError.make(url, element: "fetch index '\(index._name)' of entity '\(entity._name!)'", line: line, "unknown property '\(element.propertyName ?? "")'")
                }
            }
        }
    }

    // MARK: Model-level elements

    private func readFetchRequest(_ element: Element, byName: [String: NSEntityDescription]) throws -> (name: String, template: FetchRequestTemplate) {
        guard let name = element["name"], !name.isEmpty else {
            throw ModelFileError.make(url, element: "<fetchRequest>", line: element.line, "the fetch request template has no name")
        }
        guard let entityName = element["entity"], byName[entityName] != nil else {
            throw ModelFileError.make(url, element: "fetch request template '\(name)'", line: element.line, "unknown entity '\(element["entity"] ?? "")'")
        }
        var settings: [String: String] = [:]
        for attribute in element.attributes where !["name", "entity", "predicateString"].contains(attribute.name) {
            settings[attribute.name] = attribute.value
        }
        let predicate = try checkedPredicate(element["predicateString"], what: "fetch request template '\(name)'", line: element.line)
        return (name, FetchRequestTemplate(entityName: entityName, predicateFormat: predicate, settings: settings))
    }

    private func readConfiguration(_ element: Element, byName: [String: NSEntityDescription]) throws -> (name: String, entityNames: [String]) {
        guard let name = element["name"], !name.isEmpty else {
            throw ModelFileError.make(url, element: "<configuration>", line: element.line, "the configuration has no name")
        }
        let members = element.children(named: "memberEntity").compactMap { $0["name"] }
        for member in members where byName[member] == nil {
            throw ModelFileError.make(url, element: "configuration '\(name)'", line: element.line, "unknown member entity '\(member)'")
        }
        return (name, members)
    }

    /// A predicate string, checked to parse (model files must not carry malformed predicates).
    private func checkedPredicate(_ text: String?, what: String, line: Int) throws -> String? {
        guard let text, !text.isEmpty else { return nil }
        do {
            _ = try NSPredicate(validatingFormat: text, argumentArray: nil)
        } catch {
            throw ModelFileError.make(url, element: what, line: line, "predicateString '\(text)' is not a valid predicate: \(error.localizedDescription)")
        }
        return text
    }

    // MARK: Scalars

    private func bool(_ element: Element, _ key: String, in what: String) throws -> Bool {
        guard let text = element[key] else { return false }
        switch text {
        case "YES", "yes", "true", "1": return true
        case "NO", "no", "false", "0": return false
        default: throw ModelFileError.make(url, element: what, line: element.line, "\(key)=\"\(text)\" is not YES or NO")
        }
    }

    private func integer(_ element: Element, _ key: String, in what: String) throws -> Int? {
        guard let text = element[key] else { return nil }
        guard let value = Int(text), value >= 0 else {
            throw ModelFileError.make(url, element: what, line: element.line, "\(key)=\"\(text)\" is not a non-negative integer")
        }
        return value
    }
}
