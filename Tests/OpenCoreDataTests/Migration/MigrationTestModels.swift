import Foundation

@testable import OpenCoreData

/// A versioned model package for the migration tests, written as Xcode writes it (`Library.xcdatamodeld` with
/// `Library 1` and `Library 2`): a library of authors, books and tags, and its next version.
enum MigrationTestModels {
    /// Version 1: Author(name, age: Int16, rating) ⟷ Book(title, pages) by `Book.author` / `Author.books`;
    /// Book ⟷ Tag many-to-many.
    static let version1 = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22522" systemVersion="23A344" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Author" representedClassName="Author" syncable="YES" codeGenerationType="class">
                <attribute name="age" optional="YES" attributeType="Integer 16" usesScalarValueType="NO"/>
                <attribute name="name" attributeType="String"/>
                <attribute name="rating" optional="YES" attributeType="Integer 32" usesScalarValueType="NO"/>
                <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="author" inverseEntity="Book"/>
            </entity>
            <entity name="Book" representedClassName="Book" syncable="YES" codeGenerationType="class">
                <attribute name="pages" optional="YES" attributeType="Integer 32" usesScalarValueType="NO"/>
                <attribute name="title" optional="YES" attributeType="String"/>
                <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author"/>
                <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="books" inverseEntity="Tag"/>
            </entity>
            <entity name="Tag" representedClassName="Tag" syncable="YES" codeGenerationType="class">
                <attribute name="label" optional="YES" attributeType="String"/>
                <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="tags" inverseEntity="Book"/>
            </entity>
        </model>
        """

    /// Version 2: Author renamed Writer (`name` → `fullName`, `age` Int16 → String, `rating` removed, required
    /// `country` with default "XX", optional `nickname`); Book now under a new abstract parent Item
    /// (`createdAt`), `author` → to-many `authors` (many-to-many); Tag unchanged; new entity Publisher.
    static func version2(uniqueWriterNames: Bool = false) -> String {
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22522" systemVersion="23A344" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Book" representedClassName="Book" parentEntity="Item" syncable="YES" codeGenerationType="class">
                <attribute name="pages" optional="YES" attributeType="Integer 32" usesScalarValueType="NO"/>
                <attribute name="title" optional="YES" attributeType="String"/>
                <relationship name="authors" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Writer" inverseName="books" inverseEntity="Writer" elementID="author"/>
                <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="books" inverseEntity="Tag"/>
            </entity>
            <entity name="Item" representedClassName="Item" isAbstract="YES" syncable="YES" codeGenerationType="class">
                <attribute name="createdAt" optional="YES" attributeType="Date" usesScalarValueType="NO"/>
            </entity>
            <entity name="Publisher" representedClassName="Publisher" syncable="YES" codeGenerationType="class">
                <attribute name="name" optional="YES" attributeType="String"/>
            </entity>
            <entity name="Tag" representedClassName="Tag" syncable="YES" codeGenerationType="class">
                <attribute name="label" optional="YES" attributeType="String"/>
                <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="tags" inverseEntity="Book"/>
            </entity>
            <entity name="Writer" representedClassName="Writer" elementID="Author" syncable="YES" codeGenerationType="class">
                <attribute name="age" optional="YES" attributeType="String"/>
                <attribute name="country" attributeType="String" defaultValueString="XX"/>
                <attribute name="fullName" attributeType="String" elementID="name"/>
                <attribute name="nickname" optional="YES" attributeType="String"/>
                <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="authors" inverseEntity="Book"/>
                \(uniqueWriterNames ? "<uniquenessConstraints><uniquenessConstraint><constraint value=\"fullName\"/></uniquenessConstraint></uniquenessConstraints>" : "")
            </entity>
        </model>
        """
    }

    /// Version 3: version 2 with `Publisher.city`; or, `inferable: false`, with `Tag.label` a binary attribute (a
    /// change lightweight migration cannot infer).
    static func version3(inferable: Bool = true) -> String {
        let second = version2()
        if inferable {
            return second.replacingOccurrences(of: #"<entity name="Publisher" representedClassName="Publisher" syncable="YES" codeGenerationType="class">"#,
                                               with: #"<entity name="Publisher" representedClassName="Publisher" syncable="YES" codeGenerationType="class"><attribute name="city" optional="YES" attributeType="String"/>"#)
        }
        return second.replacingOccurrences(of: #"<attribute name="label" optional="YES" attributeType="String"/>"#,
                                           with: #"<attribute name="label" optional="YES" attributeType="Binary"/>"#)
    }

    /// Writes `Library.xcdatamodeld` (current version `Library 2`, or `Library 3` when `version3` is given) into a
    /// new temporary folder.
    static func package(version2 second: String = version2(), version3 third: String? = nil) throws -> URL {
        let package = try TemporaryDirectory.make().appendingPathComponent("Library.xcdatamodeld")
        for (name, contents) in [("Library 1", version1), ("Library 2", second)] + (third.map { [("Library 3", $0)] } ?? []) {
            let folder = package.appendingPathComponent(name + ".xcdatamodel")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(contents.utf8).write(to: folder.appendingPathComponent("contents"))
        }
        let current = try PropertyListSerialization.data(fromPropertyList: ["_XCCurrentVersionName": third == nil ? "Library 2.xcdatamodel" : "Library 3.xcdatamodel"], format: .xml, options: 0)
        try current.write(to: package.appendingPathComponent(".xccurrentversion"))
        return package
    }

    static func model(_ package: URL, version: Int) throws -> NSManagedObjectModel {
        try NSManagedObjectModel(validatingContentsOf: package, versionName: "Library \(version)")
    }
}
