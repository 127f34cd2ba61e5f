/// Human-readable names for model values, as the model editor shows them.
public enum ModelPrinting {
    /// The model editor's name of an attribute type (`"Integer 16"`, `"String"`, …).
    ///
    /// For example:
    /// ```swift
    /// ModelPrinting.typeName(.integer16AttributeType)   // "Integer 16"
    /// ```
    public static func typeName(_ type: NSAttributeType) -> String {
        XCDataModelReader.attributeTypes.first { $0.value == type }?.key ?? "Undefined"
    }

    /// The model editor's name of a delete rule (`"Nullify"`, `"Cascade"`, `"Deny"`, `"No Action"`).
    public static func deleteRuleName(_ rule: NSDeleteRule) -> String {
        XCDataModelReader.deleteRules.first { $0.value == rule }?.key ?? "Nullify"
    }
}
