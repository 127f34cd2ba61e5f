import Foundation

/// Makes a class a SwiftData model: its stored properties become persisted attributes and relationships (read and
/// written through its backing data), it conforms to ``PersistentModel`` and `Observable`.
///
/// A model may inherit from another (its entity is then a subentity of the superclass's): fetching the superclass
/// returns the subclasses' instances too.
///
/// ```swift
/// @Model class Trip { var name: String; init(name: String) { self.name = name } }
/// @Model final class BusinessTrip: Trip {
///     var perDiem: Double = 0
///     init(name: String, perDiem: Double) { self.perDiem = perDiem; super.init(name: name) }
/// }
/// ```
///
/// ```swift
/// @Model final class Trip {
///     @Attribute(.unique) var name: String
///     var start: Date?
///     @Relationship(deleteRule: .cascade, inverse: \Stop.trip) var stops: [Stop] = []
///     @Transient var isSelected = false
///     init(name: String) { self.name = name }
/// }
/// ```
@attached(member, conformances: PersistentModel, names: named(_$backingData), named(persistentBackingData), named(schemaMetadata), named(init),
          named(_$observationRegistrar), named(_$schemaMetadata), named(_$BackingModel), named(_$moveSubclassValues))
@attached(memberAttribute)
@attached(extension, conformances: PersistentModel, Observable)
public macro Model() = #externalMacro(module: "OpenSwiftDataMacros", type: "ModelMacro")

/// The accessors of a persisted property (`@Model` adds it; not for direct use).
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(_))
public macro _PersistedProperty() = #externalMacro(module: "OpenSwiftDataMacros", type: "PersistedPropertyMacro")

/// Options of a persisted attribute: uniqueness, external storage, a previous name, …
///
/// ```swift
/// @Attribute(.unique, originalName: "title") var name: String
/// ```
@attached(peer)
public macro Attribute(_ options: Schema.Attribute.Option..., originalName: String? = nil, hashModifier: String? = nil)
    = #externalMacro(module: "OpenSwiftDataMacros", type: "AttributeMacro")

/// Options of a relationship: its delete rule, its inverse, its counts, a previous name.
///
/// ```swift
/// @Relationship(deleteRule: .cascade, inverse: \Stop.trip) var stops: [Stop] = []
/// ```
@attached(peer)
public macro Relationship(_ options: Schema.Relationship.Option..., deleteRule: Schema.Relationship.DeleteRule = .nullify,
                          minimumModelCount: Int? = 0, maximumModelCount: Int? = 0, originalName: String? = nil,
                          inverse: AnyKeyPath? = nil, hashModifier: String? = nil)
    = #externalMacro(module: "OpenSwiftDataMacros", type: "RelationshipMacro")

/// A stored property `@Model` does not persist.
///
/// ```swift
/// @Transient var isSelected = false
/// ```
@attached(peer)
public macro Transient() = #externalMacro(module: "OpenSwiftDataMacros", type: "TransientMacro")

/// Uniqueness constraints of a model: each list of key paths is unique together (an insert that matches a stored
/// model on one of them updates that model).
///
/// ```swift
/// @Model final class Visit {
///     #Unique<Visit>([\.city, \.day])
///     var city: String
///     var day: Date
///     init(city: String, day: Date) { self.city = city; self.day = day }
/// }
/// ```
@freestanding(declaration, names: named(_$uniquenessConstraints))
public macro Unique<T: PersistentModel>(_ constraints: [PartialKeyPath<T>]...) = #externalMacro(module: "OpenSwiftDataMacros", type: "UniqueMacro")

/// Indexes of a model: each list of key paths is one index of the store.
///
/// ```swift
/// #Index<Trip>([\.name], [\.start, \.name])
/// ```
@freestanding(declaration, names: named(_$indices))
public macro Index<T: PersistentModel>(_ indices: [PartialKeyPath<T>]...) = #externalMacro(module: "OpenSwiftDataMacros", type: "IndexMacro")

/// Makes an actor a ``ModelActor``: `init(modelContainer:)`, its own context, and a serial executor that runs it.
///
/// ```swift
/// @ModelActor actor Importer {
///     func add(_ name: String) throws { modelContext.insert(Trip(name: name)); try modelContext.save() }
/// }
/// ```
@attached(member, names: named(modelExecutor), named(modelContainer), named(init))
@attached(extension, conformances: ModelActor)
public macro ModelActor() = #externalMacro(module: "OpenSwiftDataMacros", type: "ModelActorMacro")
