import Foundation

// Store options and class hooks Apple declares that OpenCoreData accepts for source compatibility. Each says what it
// does here; the ones without effect are listed in DEVIATIONS.md ("Stores").

/// Option: skip Core Data's comparison of the store's entity version hashes with the model's. OpenCoreData accepts
/// the key but still compares (opening a store with a model of another version would read columns that are not
/// there); see DEVIATIONS.md.
///
/// ```swift
/// let options = [NSIgnorePersistentStoreVersioningOption: true]
/// ```
public let NSIgnorePersistentStoreVersioningOption = "NSIgnorePersistentStoreVersioningOption"

/// Option: the operating-system release whose store format to write (macOS only at Apple). Accepted and ignored:
/// OpenCoreData writes one format.
///
/// ```swift
/// let options: [String: Any] = [NSPersistentStoreOSCompatibility: 101_500]
/// ```
public let NSPersistentStoreOSCompatibility = "NSPersistentStoreOSCompatibility"

/// Option of the binary store: the set of classes its secure unarchiving may decode. Accepted and ignored:
/// OpenCoreData's binary store is a property list that holds transformable values as the transformer's data and
/// decodes no archived objects itself (the attribute's value transformer, with its own allowed classes, does);
/// see DEVIATIONS.md.
///
/// ```swift
/// let options: [String: Any] = [NSBinaryStoreSecureDecodingClasses: Set([NSString.self, NSNumber.self].map(ObjectIdentifier.init))]
/// ```
public let NSBinaryStoreSecureDecodingClasses = "NSBinaryStoreSecureDecodingClasses"

/// Option of the binary store: decode old files without secure coding. Accepted and ignored, for the reason given
/// at `NSBinaryStoreSecureDecodingClasses`.
///
/// ```swift
/// let options = [NSBinaryStoreInsecureDecodingCompatibilityOption: true]
/// ```
public let NSBinaryStoreInsecureDecodingCompatibilityOption = "NSBinaryStoreInsecureDecodingCompatibilityOption"
