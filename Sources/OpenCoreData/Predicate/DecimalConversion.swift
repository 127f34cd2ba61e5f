import Foundation

/// Correctly rounded conversions between `Decimal` and `Double`, used wherever a decimal meets a REAL (SQLite
/// columns, numeric comparison). Foundation's `NSDecimalNumber.doubleValue` is not correctly rounded on Linux
/// (`12345.6789` became `12345.678900000003`) and `Decimal(Double)` keeps binary noise; going through the
/// shortest text is exact in both directions.
///
/// ```swift
/// DecimalConversion.double(Decimal(string: "12345.6789")!)   // 12345.6789
/// DecimalConversion.decimal(0.1)                             // 0.1, not 0.1000000000000000055…
/// ```
package enum DecimalConversion {
    /// The double nearest `decimal`.
    package static func double(_ decimal: Decimal) -> Double {
        Double(decimal.description) ?? NSDecimalNumber(decimal: decimal).doubleValue
    }

    /// The decimal with the shortest text that reads back as `double`.
    package static func decimal(_ double: Double) -> Decimal {
        guard double.isFinite else { return Decimal(double) }
        return Decimal(string: "\(double)", locale: Locale(identifier: "en_US_POSIX")) ?? Decimal(double)
    }
}
