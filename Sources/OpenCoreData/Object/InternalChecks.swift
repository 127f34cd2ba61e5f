import Foundation

/// Whether the library checks its own invariants as it runs (swift-collections' `_checkInvariants()` is the model):
/// off by default, on with `OPENCOREDATA_INTERNAL_CHECKS=1` (read once). With it on, every object life-cycle
/// transition checks the state it starts from (``ObjectLifeCycle``), and at the end of every event and after every
/// save a context checks the objects the event touched or the save saved — their registration, their life-cycle
/// state against its change sets, their rows in the row cache — and stops the program at the first inconsistency,
/// naming it. CI runs the whole suite once with it on (README "Tests").
///
/// ```swift
/// if InternalChecks.isEnabled { context._checkInvariants(of: touched) }
/// ```
enum InternalChecks {
    /// The switch, from `OPENCOREDATA_INTERNAL_CHECKS` ("1", "true", "yes" or "on").
    static let isEnabled: Bool = {
        guard let value = ProcessInfo.processInfo.environment["OPENCOREDATA_INTERNAL_CHECKS"] else { return false }
        return ["1", "true", "yes", "on"].contains(value.lowercased())
    }()

    /// With the checks on, stops the program with `message` unless `condition` holds; with them off, evaluates
    /// nothing.
    ///
    /// ```swift
    /// InternalChecks.expect(change == .none, "inserting an object whose state is \(change)")
    /// ```
    @inline(__always)
    static func expect(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
        if isEnabled && !condition() { preconditionFailure("Internal check: " + message()) }
    }
}
