import ArgumentParser
import Foundation
import OpenCoreData

/// `coredata model codegen MODEL --output DIR`: `@Managed` subclasses and `+CoreDataProperties` extensions, as
/// Xcode's class generation writes them (which Linux lacks).
struct ModelCodegenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "codegen",
        abstract: "Generate NSManagedObject subclasses (<Class>+CoreDataClass.swift, <Class>+CoreDataProperties.swift).",
        discussion: "Existing files of the same names in the output folder are replaced; other files are left alone."
    )

    @Argument(help: "The model (.xcdatamodeld, .xcdatamodel, .momd, .mom).")
    var model: String

    @Option(help: "The folder to write the Swift files to (created if missing).")
    var output: String

    func run() throws {
        let loaded = try ToolSupport.loadModel(model)
        let folder = URL(fileURLWithPath: output)
        let files = CodeGenerator.files(for: loaded, modelName: URL(fileURLWithPath: model).lastPathComponent)
        try reportingFailures {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for (name, contents) in files.sorted(by: { $0.key < $1.key }) {
                try Data(contents.utf8).write(to: folder.appendingPathComponent(name), options: .atomic)
            }
        }
        print("Wrote \(files.count) files for \(loaded.entities.count) entities to \(folder.path)")
    }
}
