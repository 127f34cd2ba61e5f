import ArgumentParser
import Foundation
import OpenCoreData

/// `coredata model show PATH`: entities, attributes, relationships, inheritance, constraints and version hashes.
struct ModelShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Describe a model: entities, attributes, relationships, inheritance, constraints, version hashes.",
        discussion: "For a versioned model (.xcdatamodeld, .momd) the current version is shown, after the list of versions."
    )

    @Argument(help: "The model (.xcdatamodeld, .xcdatamodel, .momd, .mom, or an Xcode model's XML contents file).")
    var model: String

    func run() throws {
        let loaded = try ToolSupport.loadModel(model)
        let url = URL(fileURLWithPath: model)
        if url.pathExtension == "xcdatamodeld" {
            let current = try reportingFailures { try NSManagedObjectModel.currentVersionName(ofModelAt: url) }
            for (name, version) in try ToolSupport.versions(of: model) {
                print("version \(name)\(name == current ? " (current)" : ""): checksum \(version.versionChecksum)")
            }
            print("")
        }
        print(ModelDescription.text(of: loaded, title: "Model \(url.lastPathComponent)"))
    }
}
