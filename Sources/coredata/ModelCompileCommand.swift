import ArgumentParser
import Foundation
import OpenCoreData

/// `coredata model compile MODEL OUTPUT`: Xcode's `momc` for Linux.
struct ModelCompileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compile",
        abstract: "Compile an Xcode model: .xcdatamodeld → .momd folder, .xcdatamodel → .mom file, .xcmappingmodel → .cdm file.",
        discussion: """
            A .momd holds one .mom per model version and a VersionInfo.plist naming the current version, with every \
            version's entity version hashes and checksum. NSManagedObjectModel(contentsOf:) loads both forms. A .cdm is the \
            compiled mapping model apps ship (its models are found next to the .xcmappingmodel); NSMappingModel loads it.
            """
    )

    @Argument(help: "The model package (.xcdatamodeld, .xcdatamodel or .xcmappingmodel).")
    var model: String

    @Argument(help: "Where to write the compiled model (.momd folder, .mom or .cdm file).")
    var output: String

    func run() throws {
        let source = URL(fileURLWithPath: model)
        let destination = URL(fileURLWithPath: output)
        try reportingFailures {
            guard FileManager.default.fileExists(atPath: source.path) else { throw CommandFailure("No such model: \(source.path)") }
            switch (source.pathExtension, destination.pathExtension) {
            case ("xcdatamodeld", "momd"), ("xcdatamodel", "mom"), ("xcmappingmodel", "cdm"): break
            case ("xcdatamodeld", _): throw CommandFailure("A .xcdatamodeld compiles to a .momd folder; name the output <Name>.momd")
            case ("xcdatamodel", _): throw CommandFailure("A .xcdatamodel compiles to a .mom file; name the output <Name>.mom")
            case ("xcmappingmodel", _): throw CommandFailure("A .xcmappingmodel compiles to a .cdm file; name the output <Name>.cdm")
            default: throw CommandFailure("Not an Xcode model package (expected .xcdatamodeld, .xcdatamodel or .xcmappingmodel): \(source.path)")
            }
            try ModelCompiler.compile(source, to: destination)
        }
        print("Compiled \(source.lastPathComponent) to \(destination.path)")
    }
}
