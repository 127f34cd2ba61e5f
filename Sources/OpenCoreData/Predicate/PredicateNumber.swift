import Foundation

/// A number read from any of Swift's or Foundation's numeric representations, so that predicates compare and compute
/// numerically whatever the storage type (`Int8`…`UInt64`, `Float`, `Double`, `Bool`, `Decimal`, `NSNumber`,
/// `NSDecimalNumber`).
package enum PredicateNumber: CustomStringConvertible {
    case int(Int64)
    case uint(UInt64)
    case double(Double)
    case decimal(Decimal)

    /// Reads `value` as a number; `nil` when it is not one (strings are never numbers).
    package init?(_ value: Any) {
        // Foundation objects first: a bridged cast such as `NSNumber as? Int` would lose the storage type.
        if let number = value as? NSNumber, type(of: value) is NSNumber.Type {
            self.init(number: number)
            return
        }
        switch value {
        case let v as Int: self = .int(Int64(v))
        case let v as Double: self = .double(v)
        case let v as Bool: self = .int(v ? 1 : 0)
        case let v as Int64: self = .int(v)
        case let v as Int32: self = .int(Int64(v))
        case let v as Int16: self = .int(Int64(v))
        case let v as Int8: self = .int(Int64(v))
        case let v as UInt: self = PredicateNumber(unsigned: UInt64(v))
        case let v as UInt64: self = PredicateNumber(unsigned: v)
        case let v as UInt32: self = .int(Int64(v))
        case let v as UInt16: self = .int(Int64(v))
        case let v as UInt8: self = .int(Int64(v))
        case let v as Float: self = .double(Double(v))
        case let v as CGFloat: self = .double(Double(v))
        case let v as Decimal: self = .decimal(v)
        default: return nil
        }
    }

    package init(number: NSNumber) {
        if let decimal = number as? NSDecimalNumber, type(of: number) is NSDecimalNumber.Type {
            self = .decimal(decimal.decimalValue)
            return
        }
        switch String(cString: number.objCType) {
        case "f", "d": self = .double(number.doubleValue)
        case "Q", "L": self = PredicateNumber(unsigned: number.uint64Value)
        default: self = .int(number.int64Value)
        }
    }

    init(unsigned value: UInt64) {
        self = value <= UInt64(Int64.max) ? .int(Int64(value)) : .uint(value)
    }

    /// Folds a `Double` that holds an exact integer back to an integer (used after arithmetic that went through
    /// floating point only because of overflow checks).
    package var doubleValue: Double {
        switch self {
        case .int(let v): return Double(v)
        case .uint(let v): return Double(v)
        case .double(let v): return v
        case .decimal(let v): return DecimalConversion.double(v)
        }
    }

    var decimalValue: Decimal {
        switch self {
        case .int(let v): return Decimal(v)
        case .uint(let v): return Decimal(v)
        case .double(let v): return DecimalConversion.decimal(v)
        case .decimal(let v): return v
        }
    }

    /// The value as an `Int64` if it is integral and in range (bitwise operators and indexes need one).
    var int64Value: Int64? {
        switch self {
        case .int(let v): return v
        case .uint(let v): return Int64(exactly: v) ?? Int64(truncatingIfNeeded: v)
        case .double(let v): return v.isFinite && v.rounded(.towardZero) == v ? Int64(exactly: v) : nil
        case .decimal(let v):
            let d = DecimalConversion.double(v)
            return d.rounded(.towardZero) == d ? Int64(exactly: d) : nil
        }
    }

    var isInteger: Bool {
        switch self {
        case .int, .uint: return true
        case .double, .decimal: return false
        }
    }

    /// The value as a Foundation-friendly Swift value (`Int`, `UInt64`, `Double` or `Decimal`).
    package var value: Any {
        switch self {
        case .int(let v): return Int(v)
        case .uint(let v): return v
        case .double(let v): return v
        case .decimal(let v): return v
        }
    }

    package var description: String { "\(value)" }

    /// Numeric comparison across representations. NaN compares unordered (never the same).
    func compare(_ other: PredicateNumber) -> ComparisonResult? {
        switch (self, other) {
        case let (.int(a), .int(b)): return Self.order(a, b)
        case let (.uint(a), .uint(b)): return Self.order(a, b)
        case let (.int(a), .uint(b)): return a < 0 ? .orderedAscending : Self.order(UInt64(a), b)
        case let (.uint(a), .int(b)): return b < 0 ? .orderedDescending : Self.order(a, UInt64(b))
        case (.decimal, .double), (.double, .decimal), (.double, _), (_, .double):
            let a = doubleValue, b = other.doubleValue
            if a.isNaN || b.isNaN { return nil }
            return Self.order(a, b)
        case (.decimal, _), (_, .decimal):
            let a = decimalValue, b = other.decimalValue
            if a.isNaN || b.isNaN { return nil }
            return Self.order(a, b)
        }
    }

    private static func order<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult {
        a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame)
    }

    // MARK: Arithmetic

    package enum Operation { case add, subtract, multiply }

    /// `+`, `-` and `*`: integers stay integers unless the result overflows, which falls back to `Double`.
    package static func apply(_ operation: Operation, _ a: PredicateNumber, _ b: PredicateNumber) -> PredicateNumber {
        if case .int(let x) = a, case .int(let y) = b {
            let (result, overflow): (Int64, Bool)
            switch operation {
            case .add: (result, overflow) = x.addingReportingOverflow(y)
            case .subtract: (result, overflow) = x.subtractingReportingOverflow(y)
            case .multiply: (result, overflow) = x.multipliedReportingOverflow(by: y)
            }
            if !overflow { return .int(result) }
        }
        if case .decimal = a, !b.isDouble { return .decimal(decimalApply(operation, a.decimalValue, b.decimalValue)) }
        if case .decimal = b, !a.isDouble { return .decimal(decimalApply(operation, a.decimalValue, b.decimalValue)) }
        let x = a.doubleValue, y = b.doubleValue
        switch operation {
        case .add: return .double(x + y)
        case .subtract: return .double(x - y)
        case .multiply: return .double(x * y)
        }
    }

    private var isDouble: Bool {
        if case .double = self { return true }
        return false
    }

    private static func decimalApply(_ operation: Operation, _ x: Decimal, _ y: Decimal) -> Decimal {
        switch operation {
        case .add: return x + y
        case .subtract: return x - y
        case .multiply: return x * y
        }
    }
}
