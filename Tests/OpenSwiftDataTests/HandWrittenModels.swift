import Foundation
import OpenSwiftData

// Two models written out as `@Model` expands them (the macro's contract), so the runtime is tested on its own.

final class Trip: PersistentModel {
    private var _$backingData: any BackingData<Trip> = Trip.createBackingData()
    public var persistentBackingData: any BackingData<Trip> {
        get { _$backingData }
        set { _$backingData = newValue }
    }
    public static var schemaMetadata: [Schema.PropertyMetadata] {
        [
            Schema.PropertyMetadata(name: "name", keypath: \Trip.name, defaultValue: nil, metadata: Schema.Attribute(.unique, .preserveValueOnDeletion)),
            Schema.PropertyMetadata(name: "start", keypath: \Trip.start, defaultValue: nil as Date?, metadata: nil),
            Schema.PropertyMetadata(name: "stops", keypath: \Trip.stops, defaultValue: [] as [Stop],
                                    metadata: Schema.Relationship(deleteRule: .cascade, inverse: \Stop.trip)),
        ]
    }
    public required init(backingData: any BackingData<Trip>) {
        _name = _SwiftDataNoType()
        _start = _SwiftDataNoType()
        _stops = _SwiftDataNoType()
        self.persistentBackingData = backingData
    }
    private let _$observationRegistrar = Observation.ObservationRegistrar()

    var name: String {
        @storageRestrictions(accesses: _$backingData, initializes: _name)
        init(initialValue) {
            _$backingData.setValue(forKey: \.name, to: initialValue)
            _name = _SwiftDataNoType()
        }
        get {
            _$observationRegistrar.access(self, keyPath: \.name)
            return self.getValue(forKey: \.name)
        }
        set {
            _$observationRegistrar.withMutation(of: self, keyPath: \.name) { self.setValue(forKey: \.name, to: newValue) }
        }
    }
    private var _name: _SwiftDataNoType

    var start: Date? = nil {
        @storageRestrictions(accesses: _$backingData, initializes: _start)
        init(initialValue) {
            _$backingData.setValue(forKey: \.start, to: initialValue)
            _start = _SwiftDataNoType()
        }
        get {
            _$observationRegistrar.access(self, keyPath: \.start)
            return self.getValue(forKey: \.start)
        }
        set {
            _$observationRegistrar.withMutation(of: self, keyPath: \.start) { self.setValue(forKey: \.start, to: newValue) }
        }
    }
    private var _start: _SwiftDataNoType

    var stops: [Stop] = [] {
        @storageRestrictions(accesses: _$backingData, initializes: _stops)
        init(initialValue) {
            _$backingData.setValue(forKey: \.stops, to: initialValue)
            _stops = _SwiftDataNoType()
        }
        get {
            _$observationRegistrar.access(self, keyPath: \.stops)
            return self.getValue(forKey: \.stops)
        }
        set {
            _$observationRegistrar.withMutation(of: self, keyPath: \.stops) { self.setValue(forKey: \.stops, to: newValue) }
        }
    }
    private var _stops: _SwiftDataNoType

    init(name: String, start: Date? = nil) {
        self.name = name
        self.start = start
    }
}

final class Stop: PersistentModel {
    private var _$backingData: any BackingData<Stop> = Stop.createBackingData()
    public var persistentBackingData: any BackingData<Stop> {
        get { _$backingData }
        set { _$backingData = newValue }
    }
    public static var schemaMetadata: [Schema.PropertyMetadata] {
        [
            Schema.PropertyMetadata(name: "city", keypath: \Stop.city, defaultValue: nil, metadata: nil),
            Schema.PropertyMetadata(name: "nights", keypath: \Stop.nights, defaultValue: 1, metadata: nil),
            Schema.PropertyMetadata(name: "trip", keypath: \Stop.trip, defaultValue: nil, metadata: nil),
        ]
    }
    public required init(backingData: any BackingData<Stop>) {
        _city = _SwiftDataNoType()
        _nights = _SwiftDataNoType()
        _trip = _SwiftDataNoType()
        self.persistentBackingData = backingData
    }
    private let _$observationRegistrar = Observation.ObservationRegistrar()

    var city: String {
        @storageRestrictions(accesses: _$backingData, initializes: _city)
        init(initialValue) {
            _$backingData.setValue(forKey: \.city, to: initialValue)
            _city = _SwiftDataNoType()
        }
        get { _$observationRegistrar.access(self, keyPath: \.city); return self.getValue(forKey: \.city) }
        set { _$observationRegistrar.withMutation(of: self, keyPath: \.city) { self.setValue(forKey: \.city, to: newValue) } }
    }
    private var _city: _SwiftDataNoType

    var nights: Int = 1 {
        @storageRestrictions(accesses: _$backingData, initializes: _nights)
        init(initialValue) {
            _$backingData.setValue(forKey: \.nights, to: initialValue)
            _nights = _SwiftDataNoType()
        }
        get { _$observationRegistrar.access(self, keyPath: \.nights); return self.getValue(forKey: \.nights) }
        set { _$observationRegistrar.withMutation(of: self, keyPath: \.nights) { self.setValue(forKey: \.nights, to: newValue) } }
    }
    private var _nights: _SwiftDataNoType

    var trip: Trip? {
        @storageRestrictions(accesses: _$backingData, initializes: _trip)
        init(initialValue) {
            _$backingData.setValue(forKey: \.trip, to: initialValue)
            _trip = _SwiftDataNoType()
        }
        get { _$observationRegistrar.access(self, keyPath: \.trip); return self.getValue(forKey: \.trip) }
        set { _$observationRegistrar.withMutation(of: self, keyPath: \.trip) { self.setValue(forKey: \.trip, to: newValue) } }
    }
    private var _trip: _SwiftDataNoType

    init(city: String, nights: Int = 1) {
        self.city = city
        self.nights = nights
        self.trip = nil
    }
}
