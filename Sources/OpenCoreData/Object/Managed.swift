// The replacement for `@NSManaged` (DESIGN.md §2): `@Managed` for properties and
// `@ManagedRelationshipAccessor` for the to-many accessor methods Xcode generates.

/// Makes a property of an `NSManagedObject` subclass read and write its value through Core Data,
/// as `@NSManaged` does on Apple platforms.
///
/// Write `@Managed` where Apple's Core Data code writes `@NSManaged`, in the class or in an extension
/// of it (as Xcode's `+CoreDataProperties.swift` files do). The property is declared without an
/// initial value — Core Data supplies defaults from the model — and with an explicit type, which may
/// be any type the attribute or relationship holds:
///
/// ```swift
/// final class Mood: NSManagedObject {
///     @Managed var date: Date
///     @Managed var rating: Int16
///     @Managed var note: String?
///     @Managed public private(set) var country: Country?   // to-one relationship
///     @Managed var colors: [Color]?                       // transformable attribute
/// }
///
/// extension Country {
///     @Managed public var moods: Set<Mood>                // to-many; NSSet works too
///     @Managed public var items: NSOrderedSet              // ordered to-many
/// }
/// ```
///
/// `@Managed var date: Date` expands to
///
/// ```swift
/// var date: Date {
///     get { _managedValue(forKey: "date") }
///     set { _setManagedValue(newValue, forKey: "date") }
/// }
/// ```
///
/// so reading and writing go through the managed object context with Core Data's access and change
/// notifications, faulting and inverse-relationship maintenance.
///
/// **Primitive accessors.** As with `@NSManaged`, a property named `primitive` followed by the
/// capitalized key accesses the primitive value of that key, bypassing notifications (for custom
/// accessors that call `willAccessValue(forKey:)` and friends themselves). The key is the rest of the
/// name with only its first character lower-cased: `primitiveDate` → `date`, `primitiveURLString`
/// → `uRLString`. `@Managed var primitiveDate: Date` expands to
/// `get { _managedPrimitiveValue(forKey: "date") }` and
/// `set { _setManagedPrimitiveValue(newValue, forKey: "date") }`. A name with a lower-case letter after
/// `primitive`, such as `primitiveness`, is an ordinary property.
///
/// Access modifiers, `override` and other attributes stay as written. The macro reports an error for
/// `let`, `static`/`class`, `lazy`/`weak`/`unowned`, an initial value, a missing type, a property that
/// already has accessors or observers, several properties in one declaration, a property named just
/// `primitive`, and use outside a class or extension.
///
/// For the relationship accessor *methods* Xcode generates (`addToMoods(_:)` and its siblings), use
/// ``ManagedRelationshipAccessor()``.
@attached(accessor)
public macro Managed() = #externalMacro(module: "OpenCoreDataMacros", type: "ManagedMacro")

/// Makes a property read and write the model property named `key`, which may differ from the Swift name.
///
/// An extension beyond Apple's `@NSManaged`, for model names that are not Swift identifiers or that
/// should be spelled differently in Swift:
///
/// ```swift
/// extension Mood {
///     @Managed("remote_id") var remoteID: String?
///     // get { _managedValue(forKey: "remote_id") }
///     // set { _setManagedValue(newValue, forKey: "remote_id") }
/// }
/// ```
///
/// On a primitive accessor (`@Managed("remote_id") var primitiveRemoteID: String?`) the key names the
/// property whose primitive value is accessed. Everything else is as for ``Managed()``.
///
/// - parameter key: The name of the attribute or relationship in the model; a non-empty string literal.
@attached(accessor)
public macro Managed(_ key: String) = #externalMacro(module: "OpenCoreDataMacros", type: "ManagedMacro")

/// Writes the body of a to-many relationship accessor method, as `@NSManaged` does for the methods in
/// Xcode's `+CoreDataProperties.swift` files.
///
/// Convert Xcode's generated accessors by dropping `@objc(…)` (there is no Objective-C runtime on
/// Linux) and writing `@ManagedRelationshipAccessor` for `@NSManaged`. The method keeps no body; the
/// macro supplies it:
///
/// ```swift
/// extension Country {
///     @ManagedRelationshipAccessor public func addToMoods(_ value: Mood)
///     // { _addManagedObject(value, toRelationship: "moods") }
///     @ManagedRelationshipAccessor public func removeFromMoods(_ values: NSSet)
///     // { _removeManagedObjects(values, fromRelationship: "moods") }
///     @ManagedRelationshipAccessor public func insertIntoItems(_ value: Item, at idx: Int)
///     // { _insertManagedObject(value, at: idx, intoRelationship: "items") }
/// }
/// ```
///
/// The name is `addTo`, `removeFrom`, `insertInto` or `replace` followed by the capitalized
/// relationship name (`addToLineItems` → `lineItems`: only the first character is lower-cased). The
/// supported signatures — where `T` is the related entity's class — and what their bodies call:
///
/// | Signature | Body |
/// | --- | --- |
/// | `addTo<Key>(_ value: T)` | `_addManagedObject(value, toRelationship:)` |
/// | `addTo<Key>(_ values: NSSet / NSOrderedSet / Set<T> / [T])` | `_addManagedObjects(values, toRelationship:)` |
/// | `removeFrom<Key>(_ value: T)` | `_removeManagedObject(value, fromRelationship:)` |
/// | `removeFrom<Key>(_ values: NSSet / NSOrderedSet / Set<T> / [T])` | `_removeManagedObjects(values, fromRelationship:)` |
/// | `removeFrom<Key>(at idx: Int)` | `_removeManagedObject(at: idx, fromRelationship:)` |
/// | `removeFrom<Key>(at indexes: NSIndexSet / IndexSet)` | `_removeManagedObjects(at: indexes, fromRelationship:)` |
/// | `insertInto<Key>(_ value: T, at idx: Int)` | `_insertManagedObject(value, at: idx, intoRelationship:)` |
/// | `insertInto<Key>(_ values: [T], at indexes: NSIndexSet / IndexSet)` | `_insertManagedObjects(values, at: indexes, intoRelationship:)` |
/// | `replace<Key>(at idx: Int, with value: T)` | `_replaceManagedObject(at: idx, with: value, inRelationship:)` |
/// | `replace<Key>(at indexes: NSIndexSet / IndexSet, with values: [T])` | `_replaceManagedObjects(at: indexes, with: values, inRelationship:)` |
///
/// Parameter names are free; labels must be as shown. Any other name or signature, a method with a
/// body, a `static`/`class` method and use outside a class or extension are compile-time errors.
///
/// This is a separate macro from ``Managed()`` because Swift 6.3 rejects one macro that would act as
/// an accessor macro on properties and as a body macro on methods.
@attached(body)
public macro ManagedRelationshipAccessor() =
    #externalMacro(module: "OpenCoreDataMacros", type: "ManagedRelationshipAccessorMacro")

/// Writes the body of a to-many relationship accessor method for the relationship named `key`.
///
/// An extension beyond Apple, for relationships whose model name does not follow from the method name:
///
/// ```swift
/// @ManagedRelationshipAccessor("line_items") public func addToLineItems(_ value: LineItem)
/// // { _addManagedObject(value, toRelationship: "line_items") }
/// ```
///
/// The method name must still start with `addTo`, `removeFrom`, `insertInto` or `replace` and a
/// capitalized word, which selects the operation; see ``ManagedRelationshipAccessor()``.
///
/// - parameter key: The name of the to-many relationship in the model; a non-empty string literal.
@attached(body)
public macro ManagedRelationshipAccessor(_ key: String) =
    #externalMacro(module: "OpenCoreDataMacros", type: "ManagedRelationshipAccessorMacro")
