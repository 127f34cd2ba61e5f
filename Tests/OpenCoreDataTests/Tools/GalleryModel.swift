import Foundation

/// The model behind `GeneratedGallery/` (the output of `coredata model codegen`, compiled into this test target):
/// every scalar and object attribute type, optional and required, an ordered and an unordered to-many, a to-one,
/// a sub-entity and a keyword-named attribute.
enum GalleryModel {
    static let contents = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22522" systemVersion="23A344" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Gallery" representedClassName="Gallery" syncable="YES" codeGenerationType="class">
                <attribute name="city" optional="YES" attributeType="String"/>
                <attribute name="name" attributeType="String"/>
                <attribute name="opened" optional="YES" attributeType="Date" usesScalarValueType="NO"/>
                <attribute name="rooms" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/>
                <relationship name="paintings" optional="YES" toMany="YES" ordered="YES" deletionRule="Cascade" destinationEntity="Painting" inverseName="gallery" inverseEntity="Painting"/>
            </entity>
            <entity name="Painter" representedClassName="Painter" syncable="YES" codeGenerationType="class">
                <attribute name="born" optional="YES" attributeType="Integer 32" usesScalarValueType="YES"/>
                <attribute name="identifier" optional="YES" attributeType="UUID" usesScalarValueType="NO"/>
                <attribute name="name" attributeType="String"/>
                <attribute name="website" optional="YES" attributeType="URI"/>
                <relationship name="paintings" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Painting" inverseName="painters" inverseEntity="Painting"/>
            </entity>
            <entity name="Painting" representedClassName="Painting" syncable="YES" codeGenerationType="class">
                <attribute name="default" optional="YES" attributeType="Boolean" usesScalarValueType="YES"/>
                <attribute name="height" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
                <attribute name="price" optional="YES" attributeType="Decimal" defaultValueString="0.0"/>
                <attribute name="thumbnail" optional="YES" attributeType="Binary"/>
                <attribute name="title" attributeType="String"/>
                <attribute name="year" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>
                <relationship name="gallery" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Gallery" inverseName="paintings" inverseEntity="Gallery"/>
                <relationship name="painters" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Painter" inverseName="paintings" inverseEntity="Painter"/>
            </entity>
            <entity name="Sculpture" representedClassName="Sculpture" parentEntity="Painting" syncable="YES" codeGenerationType="class">
                <attribute name="weight" optional="YES" attributeType="Float" usesScalarValueType="YES"/>
            </entity>
        </model>
        """

    /// Writes `Gallery.xcdatamodel` into a new temporary folder.
    static func package() throws -> URL {
        let package = try TemporaryDirectory.make().appendingPathComponent("Gallery.xcdatamodel")
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: package.appendingPathComponent("contents"))
        return package
    }
}
