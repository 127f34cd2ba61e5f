/// An entity seen by the predicate layer's kind-of test (`EntityKind`, `#Predicate { $0 is BusinessTrip }`), which
/// lies below the model and so names the protocol, not this class.
extension NSEntityDescription: KindTestedEntity {
    package var kindTestParent: (any KindTestedEntity)? { superentity }
}
