extension NSManagedObject {
    /// The object of a transformable attribute, transforming the stored data on first access.
    func transformedValue(at index: Int, attribute: NSAttributeDescription) -> Any? {
        if let cached = transformedValues[index] { return cached }
        let object = TransformableValues.object(from: attributeValues[index], attribute: attribute)
        if let object { transformedValues[index] = object }
        return object
    }
}
