import ArgumentParser
import Foundation
import OpenCoreData

/// `coredata model compile MODEL OUTPUT`: Xcode's `momc` for Linux.
struct ModelCompileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compile",
        abstract: "Compile an Xcode model: .xcdatamodeld → .momd folder, .xcdatamodel → .mom file.",
        discussion: """
            A .momd holds one .mom per model version and a VersionInfo.plist naming the current version, with every \
            version's entity version hashes and checksum. NSManagedObjectModel(contentsOf:) loads both forms.
            """
    )

    @Argument(help: "The model package (.xcdatamodeld or .xcdatamodel).")
    var model: String

    @Argument(help: "Where to write the compiled model (.momd folder or .mom file).")
    var output: String

    func run() throws {
        let source = URL(fileURLWithPath: model)
        let destination = URL(fileURLWithPath: output)
        try reportingFailures {
            guard FileManager.default.fileExists(atPath: source.path) else { throw CommandFailure("No such model: \(source.path)") }
            switch (source.pathExtension, destination.pathExtension) {
            case ("xcdatamodeld", "momd"), ("xcdatamodel", "mom"): break
            case ("xcdatamodeld", _): throw CommandFailure("A .xcdatamodeld compiles to a .momd folder; name the output <Name>.momd")
            case ("xcdatamodel", _): throw CommandFailure("A .xcdatamodel compiles to a .mom file; name the output <Name>.mom")
            default: throw CommandFailure("Not an Xcode model package (expected .xcdatamodeld or .xcdatamodel): \(source.path)")
            }
            try ModelCompiler.compile(source, to: destination)
        }
        print("Compiled \(source.lastPathComponent) to \(destination.path)")
    }
}
