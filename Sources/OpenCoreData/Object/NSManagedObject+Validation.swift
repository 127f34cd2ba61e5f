extension NSManagedObject {
    /// The implementation of `validateForInsert` (the overridable method is declared in the class body).
    func validateForInsertImpl() throws {
        try validateAllProperties()
    }

    /// The implementation of `validateForUpdate` (the overridable method is declared in the class body).
    func validateForUpdateImpl() throws {
        try validateAllProperties()
    }

    /// The implementation of `validateForDelete` (the overridable method is declared in the class body).
    func validateForDeleteImpl() throws {
        var errors: [NSError] = []
        for case let relationship as NSRelationshipDescription in entity.properties where relationship.deleteRule == .denyDeleteRule {
            let destinations = destinationsForValidation(relationship).filter { !$0._isDeleted }
            if !destinations.isEmpty {
                errors.append(ValidationErrors.make(NSValidationRelationshipDeniedDeleteError, object: self, key: relationship.name, value: nil,
                                                    message: "\(entity.name ?? "The object") cannot be deleted while its \(relationship.name) relationship is not empty."))
            }
        }
        if let error = ValidationErrors.combined(errors) { throw error }
    }

    /// The implementation of `validateValue` (the overridable method is declared in the class body).
    func validateValueImpl(_ value: inout Any?, forKey key: String) throws {
        switch layout.slots[key] {
        case .attribute(_, let attribute)?:
            try ValidationRules.validate(attribute: attribute, value: value, of: self)
        case .toOne(_, let relationship)?, .toMany(_, let relationship)?:
            // An optional relationship without count limits cannot fail: skip gathering its destinations.
            if relationship.isOptional && relationship.minCount == 0 && (relationship.maxCount == 0 || !relationship.isToMany) { return }
            try ValidationRules.validate(relationship: relationship, destinations: destinationsForValidation(relationship), of: self)
        default:
            return
        }
    }

    /// Runs `validateValue(_:forKey:)` for every property and combines the errors.
    func validateAllProperties() throws {
        var errors: [NSError] = []
        fireFaultIfNeeded()
        // Without an override of `validateValue`, a property the base one would accept needs no call: one without
        // rules, or a required attribute that has a value. (Vtable probing, an unsafe fast path: off with
        // `UnsafeFastPaths.isEnabled` false.)
        let skipsAcceptedValues = UnsafeFastPaths.isEnabled && !OverriddenMethods.isOverridden(.validateValue, by: type(of: self))
        for (name, slot, rules) in layout.validatedProperties {
            if skipsAcceptedValues {
                switch (rules, slot) {
                case (.none, _): continue
                case (.required, .attribute(let index, _)) where !attributeValues[index].isNull: continue
                default: break
                }
            }
            var value: Any? = nil
            if case .attribute(let index, let attribute) = slot { value = validationValue(at: index, attribute: attribute) }
            let original = value
            do {
                try validateValue(&value, forKey: name)
                if case .attribute = slot, !ValidationRules.unchanged(original, value) {
                    setValue(value, forKey: name)  // the validation coerced the value
                }
            } catch let error as NSError {
                if error.code == NSValidationMultipleErrorsError, let details = error.userInfo[NSDetailedErrorsKey] as? [NSError] {
                    errors += details
                } else {
                    errors.append(error)
                }
            }
        }
        if let error = ValidationErrors.combined(errors) { throw error }
    }

    /// An attribute's value for validation, read from storage (what `value(forKey:)` returns, without the access
    /// notifications a save does not need).
    private func validationValue(at index: Int, attribute: NSAttributeDescription) -> Any? {
        if attribute.attributeType == .transformableAttributeType { return transformedValue(at: index, attribute: attribute) }
        return ValueConversion.kvcValue(attributeValues[index], for: attribute)
    }

    /// The destinations of a relationship, for validation.
    func destinationsForValidation(_ relationship: NSRelationshipDescription) -> [NSManagedObject] {
        let value = self.value(forKey: relationship.name)
        if relationship.isToMany {
            if let set = value as? NSSet { return set.allObjects.compactMap { $0 as? NSManagedObject } }
            if let ordered = value as? NSOrderedSet { return ordered.array.compactMap { $0 as? NSManagedObject } }
            return []
        }
        return (value as? NSManagedObject).map { [$0] } ?? []
    }
}

/// The model's validation rules, with Apple's error codes.
enum ValidationRules {
    static func validate(attribute: NSAttributeDescription, value: Any?, of object: NSManagedObject) throws {
        guard let value, type(of: value) != NSNull.self else {   // a type comparison: `is NSNull` tries bridging casts
            if !attribute.isOptional {
                throw ValidationErrors.make(NSValidationMissingMandatoryPropertyError, object: object, key: attribute.name, value: nil,
                                            message: "\(attribute.name) is a required value.")
            }
            return
        }
        var errors: [NSError] = []
        for (predicate, rule) in attribute.validationPredicatesAndRules {
            guard !predicate.evaluate(with: value) else { continue }
            let code = (rule.warning as? NSNumber)?.intValue ?? NSManagedObjectValidationError
            let message = (rule.warning as? String) ?? ValidationErrors.message(code: code, key: attribute.name)
            errors.append(ValidationErrors.make(code, object: object, key: attribute.name, value: value, message: message, predicate: predicate))
        }
        if let error = ValidationErrors.combined(errors) { throw error }
    }

    static func validate(relationship: NSRelationshipDescription, destinations: [NSManagedObject], of object: NSManagedObject) throws {
        let live = destinations.filter { !$0._isDeleted }
        let count = live.count
        if !relationship.isToMany {
            if count == 0 && !relationship.isOptional {
                throw ValidationErrors.make(NSValidationMissingMandatoryPropertyError, object: object, key: relationship.name, value: nil,
                                            message: "\(relationship.name) is a required value.")
            }
            return
        }
        // A to-many's value is a set, never nil: "required" only means its counts are enforced even when it is empty
        // (an optional one may be empty whatever its minimum). With no minimum count (0, "undefined"), an empty set
        // is valid, as on Apple platforms.
        if count == 0 && relationship.isOptional { return }
        if relationship.minCount > 0 && count < relationship.minCount {
            throw ValidationErrors.make(NSValidationRelationshipLacksMinimumCountError, object: object, key: relationship.name, value: NSSet(array: live),
                                        message: "Too few items in \(relationship.name) (\(count), at least \(relationship.minCount)).")
        }
        if relationship.maxCount > 0 && count > relationship.maxCount {
            throw ValidationErrors.make(NSValidationRelationshipExceedsMaximumCountError, object: object, key: relationship.name, value: NSSet(array: live),
                                        message: "Too many items in \(relationship.name) (\(count), at most \(relationship.maxCount)).")
        }
    }

    /// Whether validation left a value unchanged: first whether the value is still the very same bits (the
    /// common case, with no cast), then `same`.
    static func unchanged(_ original: Any?, _ validated: Any?) -> Bool {
        if let original, let validated, bitwiseIdentical(original, validated) { return true }
        return same(original, validated)
    }

    /// Whether two values have the same type and the same bits (an inline value's bytes, or the same box of a
    /// larger one): then they are the same value. (Different bits may still be equal values; `same` decides those.)
    private static func bitwiseIdentical(_ a: Any, _ b: Any) -> Bool {
        guard type(of: a) == type(of: b) else { return false }
        func size<T>(_: T) -> Int { MemoryLayout<T>.size }
        let inlineCapacity = 3 * MemoryLayout<Int>.size   // an existential's inline buffer; larger values are boxed
        let size = _openExistential(a, do: size)
        let compared = size <= inlineCapacity ? size : MemoryLayout<Int>.size
        guard compared > 0 else { return true }
        var a = a, b = b
        return withUnsafeBytes(of: &a) { x in withUnsafeBytes(of: &b) { y in x.prefix(compared).elementsEqual(y.prefix(compared)) } }
    }

    /// Whether validation left a value unchanged.
    static func same(_ a: Any?, _ b: Any?) -> Bool {
        // The common case — validation left the value alone — without bridging casts: the same object, or equal
        // values of the same exact type.
        if let a, let b, type(of: a) == type(of: b) {
            if type(of: a) is AnyClass {
                if (a as AnyObject) === (b as AnyObject) { return true }
            } else if type(of: a) == String.self {
                return (a as! String) == (b as! String)
            } else if type(of: a) == Date.self {
                return (a as! Date) == (b as! Date)
            } else if type(of: a) == Data.self {
                return (a as! Data) == (b as! Data)
            }
        }
        switch (a, b) {
        case (nil, nil): return true
        case let (x as NSNumber, y as NSNumber): return x === y || x.isEqual(y)
        case let (x as String, y as String): return x == y
        case let (x as Date, y as Date): return x == y
        case let (x as Data, y as Data): return x == y
        // Before `NSObject`: on Linux a Swift array casts to `NSArray`, whose elements compare by identity.
        case let (x as any Equatable, y?): return equal(x, y)   // e.g. an array of Equatable structs in a transformable
        case let (x as NSObject, y as NSObject): return x.isEqual(y)
        case let (x as AnyHashable, y as AnyHashable): return x == y
        case let (x?, y?): return type(of: x) is AnyClass && (x as AnyObject) === (y as AnyObject)
        default: return false
        }
    }

    private static func equal<T: Equatable>(_ x: T, _ y: Any) -> Bool {
        (y as? T) == x
    }
}

/// Validation errors with Apple's domain, codes and userInfo keys.
enum ValidationErrors {
    static func make(_ code: Int, object: NSManagedObject, key: String, value: Any?, message: String, predicate: NSPredicate? = nil) -> NSError {
        var userInfo: [String: Any] = [NSValidationObjectErrorKey: object, NSValidationKeyErrorKey: key, NSLocalizedDescriptionKey: message]
        if let value { userInfo[NSValidationValueErrorKey] = value }
        if let predicate { userInfo[NSValidationPredicateErrorKey] = predicate }
        return NSError(domain: NSCocoaErrorDomain, code: code, userInfo: userInfo)
    }

    /// One error as is; several as `NSValidationMultipleErrorsError` with `NSDetailedErrorsKey`.
    static func combined(_ errors: [NSError]) -> NSError? {
        guard let first = errors.first else { return nil }
        if errors.count == 1 { return first }
        return NSError(domain: NSCocoaErrorDomain, code: NSValidationMultipleErrorsError, userInfo: [
            NSDetailedErrorsKey: errors,
            NSLocalizedDescriptionKey: "Multiple validation errors occurred (\(errors.count)).",
        ])
    }

    /// Apple's message for a validation code.
    static func message(code: Int, key: String) -> String {
        switch code {
        case NSValidationNumberTooLargeError: return "\(key) is too large."
        case NSValidationNumberTooSmallError: return "\(key) is too small."
        case NSValidationDateTooLateError: return "\(key) is too late."
        case NSValidationDateTooSoonError: return "\(key) is too early."
        case NSValidationStringTooLongError: return "\(key) is too long."
        case NSValidationStringTooShortError: return "\(key) is too short."
        case NSValidationStringPatternMatchingError: return "\(key) is invalid."
        default: return "\(key) is invalid."
        }
    }
}
