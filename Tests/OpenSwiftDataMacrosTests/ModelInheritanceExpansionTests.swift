import OpenSwiftDataMacros
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// How `@Model` expands a class other models may inherit from (not `final`) and a model inheriting from one: the
/// schema metadata becomes an overridable class property built by a generic function rooting key paths at the asking
/// class, and a subclass keeps the values its initializer sets before `super.init` in storage of its own.
@Suite("@Model inheritance expansion")
struct ModelInheritanceExpansionTests {
    @Test("a class that is not final can be inherited from: class metadata, its rooting function, the backing model name")
    func inheritableRoot() {
        assertExpansion(
            """
            @Model
            class Trip {
                var name: String
                init(name: String) { self.name = name }
            }
            """,
            expandedSource: #"""
                class Trip {
                    @_PersistedProperty
                    var name: String
                    init(name: String) { self.name = name }

                    @OpenSwiftData.Transient
                    private var _$backingData: any OpenSwiftData.BackingData<Trip> = Trip.createBackingData()

                    public var persistentBackingData: any OpenSwiftData.BackingData<Trip> {
                        get {
                            _$backingData
                        }
                        set {
                            _$backingData = newValue
                        }
                    }

                    public class var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] {
                        Trip._$schemaMetadata(rootedAt: Trip.self)
                    }

                    public static func _$schemaMetadata<S: Trip>(rootedAt _: S.Type) -> [OpenSwiftData.Schema.PropertyMetadata] {
                        [
                            OpenSwiftData.Schema.PropertyMetadata(name: "name", keypath: \S.name, defaultValue: nil, metadata: nil)
                        ]
                    }

                    public typealias _$BackingModel = Trip

                    public func _$moveSubclassValues() {
                    }

                    public required init(backingData: any OpenSwiftData.BackingData<Trip>) {
                        _name = OpenSwiftData._SwiftDataNoType()
                        self.persistentBackingData = backingData
                    }

                    @OpenSwiftData.Transient
                    private let _$observationRegistrar = Observation.ObservationRegistrar()
                }

                extension Trip: OpenSwiftData.PersistentModel, Observation.Observable {
                }
                """#,
            macros: swiftDataMacros(only: ["Model"])
        )
    }

    @Test("a model inheriting from one (the compiler passes no conformance to add): no backing data property of its own, overrides")
    func subclass() {
        assertExpansion(
            """
            @Model
            final class BusinessTrip: Trip {
                var perDiem: Double = 0
            }
            """,
            expandedSource: #"""
                final class BusinessTrip: Trip {
                    @_PersistedProperty
                    var perDiem: Double = 0

                    @OpenSwiftData.Transient
                    private var _$backingData: any OpenSwiftData.BackingData<BusinessTrip> = BusinessTrip.createBackingData()

                    public override class var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] {
                        BusinessTrip._$schemaMetadata(rootedAt: BusinessTrip.self)
                    }

                    public static func _$schemaMetadata<S: BusinessTrip>(rootedAt _: S.Type) -> [OpenSwiftData.Schema.PropertyMetadata] {
                        Trip._$schemaMetadata(rootedAt: S.self) + [
                            OpenSwiftData.Schema.PropertyMetadata(name: "perDiem", keypath: \S.perDiem, defaultValue: 0 as Double, metadata: nil)
                        ]
                    }

                    public override func _$moveSubclassValues() {
                        super._$moveSubclassValues()
                        OpenSwiftData._moveSubclassValues(from: _$backingData, into: self)
                    }

                    public required init(backingData: any OpenSwiftData.BackingData<_$BackingModel>) {
                        _perDiem = OpenSwiftData._SwiftDataNoType()
                        _$backingData = BusinessTrip.createBackingData()
                        super.init(backingData: backingData)
                    }

                    @OpenSwiftData.Transient
                    private let _$observationRegistrar = Observation.ObservationRegistrar()
                }
                """#,
            macros: swiftDataMacros(replacing: "Model", with: MacroSpec(type: ModelMacro.self, conformances: [])).filter { $0.key == "Model" }
        )
    }

    @Test("a class conforming to PersistentModel in its own inheritance clause is a root, whatever the compiler passes")
    func declaredConformanceIsARoot() {
        assertExpansion(
            """
            @Model
            final class Marker: PersistentModel {
            }
            """,
            expandedSource: """
                final class Marker: PersistentModel {

                    @OpenSwiftData.Transient
                    private var _$backingData: any OpenSwiftData.BackingData<Marker> = Marker.createBackingData()

                    public var persistentBackingData: any OpenSwiftData.BackingData<Marker> {
                        get {
                            _$backingData
                        }
                        set {
                            _$backingData = newValue
                        }
                    }

                    public static var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] {
                        []
                    }

                    public required init(backingData: any OpenSwiftData.BackingData<Marker>) {
                        self.persistentBackingData = backingData
                    }

                    @OpenSwiftData.Transient
                    private let _$observationRegistrar = Observation.ObservationRegistrar()
                }
                """,
            macros: swiftDataMacros(replacing: "Model", with: MacroSpec(type: ModelMacro.self, conformances: [])).filter { $0.key == "Model" }
        )
    }
}
