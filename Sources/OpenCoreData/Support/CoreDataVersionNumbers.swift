// The Core Data framework version numbers Apple's `CoreDataDefines.h` declares, so code that compares
// `NSCoreDataVersionNumber` against a release (`NSCoreDataVersionNumber >= NSCoreDataVersionNumber_iPhoneOS_9_0`)
// compiles and takes the modern branch. OpenCoreData reports the newest of them as its own version (see
// DEVIATIONS.md: Apple's runtime value on current systems is larger than any declared constant).

/// The version of Core Data in this process: OpenCoreData reports the newest version Apple declares a constant
/// for (`NSCoreDataVersionNumber_iPhoneOS_9_3`, 641.6), so every "at least version X" check passes.
///
/// For example:
/// ```swift
/// if NSCoreDataVersionNumber >= NSCoreDataVersionNumber_iPhoneOS_9_0 { /* batch requests are available */ }
/// ```
public var NSCoreDataVersionNumber: Double { NSCoreDataVersionNumber_iPhoneOS_9_3 }

/// The Core Data version number released with macOS 10.4 (`46.0`).
///
/// ```swift
/// let isTiger = NSCoreDataVersionNumber == NSCoreDataVersionNumber10_4
/// ```
public var NSCoreDataVersionNumber10_4: Double { 46.0 }
/// The Core Data version number released with macOS 10.4.3 (`77.0`); compare with `NSCoreDataVersionNumber`.
public var NSCoreDataVersionNumber10_4_3: Double { 77.0 }
/// The Core Data version number released with macOS 10.5 (`185.0`); compare with `NSCoreDataVersionNumber`.
public var NSCoreDataVersionNumber10_5: Double { 185.0 }
/// The Core Data version number released with macOS 10.5.3 (`186.0`); compare with `NSCoreDataVersionNumber`.
public var NSCoreDataVersionNumber10_5_3: Double { 186.0 }
/// The Core Data version number released with macOS 10.6 (`246.0`); compare with `NSCoreDataVersionNumber`.
public var NSCoreDataVersionNumber10_6: Double { 246.0 }
/// The Core Data version number released with macOS 10.6.2 (`250.0`); compare with `NSCoreDataVersionNumber`.
public var NSCoreDataVersionNumber10_6_2: Double { 250.0 }
/// The Core Data version number released with macOS 10.6.3 (`251.0`); compare with `NSCoreDataVersionNumber`.
public var NSCoreDataVersionNumber10_6_3: Double { 251.0 }
/// The Core Data version number released with macOS 10.7 (`358.4`); compare with `NSCoreDataVersionNumber`.
public var NSCoreDataVersionNumber10_7: Double { 358.4 }
/// The Core Data version number released with macOS 10.7.2 (`358.12`); compare with `NSCoreDataVersionNumber`.
public var NSCoreDataVersionNumber10_7_2: Double { 358.12 }
/// The Core Data version number released with macOS 10.7.3 (`358.13`); compare with `NSCoreDataVersionNumber`.
public var NSCoreDataVersionNumber10_7_3: Double { 358.13 }
/// The Core Data version number released with macOS 10.7.4 (`358.14`); compare with `NSCoreDataVersionNumber`.
public var NSCoreDataVersionNumber10_7_4: Double { 358.14 }
/// The Core Data version number released with macOS 10.8 (`407.5`); compare with `NSCoreDataVersionNumber`.
public var NSCoreDataVersionNumber10_8: Double { 407.5 }
/// The Core Data version number released with macOS 10.8.2 (`407.7`); compare with `NSCoreDataVersionNumber`.
public var NSCoreDataVersionNumber10_8_2: Double { 407.7 }
/// The Core Data version number released with macOS 10.9 (`481.0`); compare with `NSCoreDataVersionNumber`.
public var NSCoreDataVersionNumber10_9: Double { 481.0 }
/// The Core Data version number released with macOS 10.9.2 (`481.1`); compare with `NSCoreDataVersionNumber`.
public var NSCoreDataVersionNumber10_9_2: Double { 481.1 }
/// The Core Data version number released with macOS 10.9.3 (`481.3`); compare with `NSCoreDataVersionNumber`.
public var NSCoreDataVersionNumber10_9_3: Double { 481.3 }
/// The Core Data version number released with macOS 10.10 (`526.0`); compare with `NSCoreDataVersionNumber`.
public var NSCoreDataVersionNumber10_10: Double { 526.0 }
/// The Core Data version number released with macOS 10.10.2 (`526.1`); compare with `NSCoreDataVersionNumber`.
public var NSCoreDataVersionNumber10_10_2: Double { 526.1 }
/// The Core Data version number released with macOS 10.10.3 (`526.2`); compare with `NSCoreDataVersionNumber`.
public var NSCoreDataVersionNumber10_10_3: Double { 526.2 }
/// The Core Data version number released with macOS 10.11 (`640.0`); compare with `NSCoreDataVersionNumber`.
public var NSCoreDataVersionNumber10_11: Double { 640.0 }
/// The Core Data version number released with macOS 10.11.3 (`641.3`); compare with `NSCoreDataVersionNumber`.
public var NSCoreDataVersionNumber10_11_3: Double { 641.3 }

/// The Core Data version number released with iPhone OS 3.0 (`241.0`).
///
/// ```swift
/// let hasModernCoreData = NSCoreDataVersionNumber > NSCoreDataVersionNumber_iPhoneOS_3_0
/// ```
public var NSCoreDataVersionNumber_iPhoneOS_3_0: Double { 241.0 }
/// The Core Data version number released with iPhone OS 3.1 (`248.0`); compare with `NSCoreDataVersionNumber`.
public var NSCoreDataVersionNumber_iPhoneOS_3_1: Double { 248.0 }
/// The Core Data version number released with iPhone OS 3.2 (`310.2`); compare with `NSCoreDataVersionNumber`.
public var NSCoreDataVersionNumber_iPhoneOS_3_2: Double { 310.2 }
/// The Core Data version number released with iOS 4.0 (`320.5`); compare with `NSCoreDataVersionNumber`.
public var NSCoreDataVersionNumber_iPhoneOS_4_0: Double { 320.5 }
/// The Core Data version number released with iOS 4.1 (`320.11`); compare with `NSCoreDataVersionNumber`.
public var NSCoreDataVersionNumber_iPhoneOS_4_1: Double { 320.11 }
/// The Core Data version number released with iOS 4.2 (`320.15`); compare with `NSCoreDataVersionNumber`.
public var NSCoreDataVersionNumber_iPhoneOS_4_2: Double { 320.15 }
/// The Core Data version number released with iOS 4.3 (`320.17`); compare with `NSCoreDataVersionNumber`.
public var NSCoreDataVersionNumber_iPhoneOS_4_3: Double { 320.17 }
/// The Core Data version number released with iOS 5.0 (`386.1`); compare with `NSCoreDataVersionNumber`.
public var NSCoreDataVersionNumber_iPhoneOS_5_0: Double { 386.1 }
/// The Core Data version number released with iOS 5.1 (`386.5`); compare with `NSCoreDataVersionNumber`.
public var NSCoreDataVersionNumber_iPhoneOS_5_1: Double { 386.5 }
/// The Core Data version number released with iOS 6.0 (`419.0`); compare with `NSCoreDataVersionNumber`.
public var NSCoreDataVersionNumber_iPhoneOS_6_0: Double { 419.0 }
/// The Core Data version number released with iOS 6.1 (`419.1`); compare with `NSCoreDataVersionNumber`.
public var NSCoreDataVersionNumber_iPhoneOS_6_1: Double { 419.1 }
/// The Core Data version number released with iOS 7.0 (`479.1`); compare with `NSCoreDataVersionNumber`.
public var NSCoreDataVersionNumber_iPhoneOS_7_0: Double { 479.1 }
/// The Core Data version number released with iOS 7.1 (`479.3`); compare with `NSCoreDataVersionNumber`.
public var NSCoreDataVersionNumber_iPhoneOS_7_1: Double { 479.3 }
/// The Core Data version number released with iOS 8.0 (`526.0`); compare with `NSCoreDataVersionNumber`.
public var NSCoreDataVersionNumber_iPhoneOS_8_0: Double { 526.0 }
/// The Core Data version number released with iOS 8.3 (`526.2`); compare with `NSCoreDataVersionNumber`.
public var NSCoreDataVersionNumber_iPhoneOS_8_3: Double { 526.2 }
/// The Core Data version number released with iOS 9.0 (`640.0`); compare with `NSCoreDataVersionNumber`.
public var NSCoreDataVersionNumber_iPhoneOS_9_0: Double { 640.0 }
/// The Core Data version number released with iOS 9.2 (`641.4`); compare with `NSCoreDataVersionNumber`.
public var NSCoreDataVersionNumber_iPhoneOS_9_2: Double { 641.4 }
/// The Core Data version number released with iOS 9.3 (`641.6`); compare with `NSCoreDataVersionNumber`.
public var NSCoreDataVersionNumber_iPhoneOS_9_3: Double { 641.6 }
