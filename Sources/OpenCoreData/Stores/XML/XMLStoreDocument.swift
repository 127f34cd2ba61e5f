/// A document in Core Data's XML store format (`NSXMLStoreType`, store-format of Mac OS X 10.4+): a
/// `<database>` with `<databaseInfo>` (version, UUID, next object ID, metadata plist) and one `<object
/// type="ENTITY" id="zNN">` per object, holding `<attribute name type>` values and `<relationship name
/// type="1/1|0/0" destination idrefs>` references. Xcode's mapping models (`xcmapping.xml`) are such documents.
///
/// Read-only; objects keep their attribute values as decoded Swift values (String, Int, Double, Bool, Data,
/// Date) and their relationships as ID lists.
struct XMLStoreDocument {
    /// One stored object.
    struct Object {
        let id: String
        let type: String
        var attributes: [String: Any] = [:]
        var relationships: [String: [String]] = [:]
    }

    let uuid: String?
    let metadata: [String: Any]
    /// Objects by ID.
    let objects: [String: Object]

    /// Objects of an entity type, in document order.
    let objectIDsInOrder: [String]

    func objects(ofType type: String) -> [Object] {
        objectIDsInOrder.compactMap { objects[$0] }.filter { $0.type == type }
    }

    /// Parses a document, throwing `NSFileReadCorruptFileError` (259) with the line and the problem.
    init(data: Data, url: URL) throws {
        let tree: XMLTree
        do {
            tree = try XMLTree(data: data)
        } catch {
            throw Self.corrupt(url, "\(error)")
        }
        guard tree.root.name == "database" else { throw Self.corrupt(url, "the root element is <\(tree.root.name)>, not <database> (not a Core Data XML store)") }
        var uuid: String?
        var metadata: [String: Any] = [:]
        if let info = tree.root.child(named: "databaseInfo") {
            uuid = info.child(named: "UUID")?.text.trimmingCharacters(in: .whitespacesAndNewlines)
            if let plist = info.child(named: "metadata")?.child(named: "plist") {
                metadata = (try? Self.propertyList(plist)) as? [String: Any] ?? [:]
            }
        }
        var objects: [String: Object] = [:]
        var order: [String] = []
        for element in tree.root.children(named: "object") {
            guard let id = element["id"], let type = element["type"] else {
                throw Self.corrupt(url, "line \(element.line): an <object> needs an id and a type")
            }
            var object = Object(id: id, type: type)
            for child in element.children {
                guard let name = child["name"] else { continue }
                switch child.name {
                case "attribute":
                    object.attributes[name] = try Self.value(child.text, type: child["type"] ?? "string", url: url, line: child.line)
                case "relationship":
                    object.relationships[name] = (child["idrefs"] ?? "").split(separator: " ").map(String.init)
                default:
                    continue
                }
            }
            if objects.updateValue(object, forKey: id) != nil { throw Self.corrupt(url, "line \(element.line): the object ID \(id) is used twice") }
            order.append(id)
        }
        self.uuid = uuid
        self.metadata = metadata
        self.objects = objects
        objectIDsInOrder = order
    }

    /// An attribute's text as the value its declared type says.
    private static func value(_ text: String, type: String, url: URL, line: Int) throws -> Any {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        switch type {
        case "string": return text
        case "bool": return trimmed == "1" || trimmed.lowercased() == "yes" || trimmed.lowercased() == "true"
        case "int16", "int32", "int64":
            guard let value = Int(trimmed) else { throw corrupt(url, "line \(line): '\(trimmed)' is not an integer") }
            return value
        case "float", "double", "decimal":
            guard let value = Double(trimmed) else { throw corrupt(url, "line \(line): '\(trimmed)' is not a number") }
            return value
        case "date":
            guard let value = Double(trimmed) else { throw corrupt(url, "line \(line): '\(trimmed)' is not a date") }
            return Date(timeIntervalSinceReferenceDate: value)
        case "binary", "transformable":
            guard let data = Data(base64Encoded: trimmed, options: .ignoreUnknownCharacters) else {
                throw corrupt(url, "line \(line): the binary value is not base64")
            }
            return data
        default:
            return text
        }
    }

    /// Re-serialises a `<plist>` element and parses it as a property list.
    private static func propertyList(_ element: XMLTree.Element) throws -> Any {
        func xml(_ element: XMLTree.Element) -> String {
            let escaped = element.text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            return "<\(element.name)>" + (element.children.isEmpty ? escaped : element.children.map(xml).joined()) + "</\(element.name)>"
        }
        let text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>" + xml(element)
        return try PropertyListSerialization.propertyList(from: Data(text.utf8), format: nil)
    }

    static func corrupt(_ url: URL, _ message: String) -> NSError {
        CoreDataError.make(NSFileReadCorruptFileError, "The file at \(url.path) is not a valid Core Data XML document: \(message)", userInfo: [NSFilePathErrorKey: url.path])
    }
}
