// `coredata`: command-line tools for Core Data models and stores, on Linux.
//
//     coredata model compile Moody.xcdatamodeld Moody.momd
//     coredata store model Moody.sqlite

import ArgumentParser

/// The root command: a group of command groups (`model`, `store`), each a group of subcommands.
@main
struct CoreDataCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coredata",
        abstract: "Tools for Core Data models and stores.",
        subcommands: [ModelCommand.self, StoreCommand.self]
    )
}

/// `coredata model …`: commands on model files (`.xcdatamodeld`, `.xcdatamodel`, `.momd`, `.mom`).
struct ModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Work with Core Data models.",
        subcommands: [ModelCompileCommand.self]
    )
}

/// `coredata store …`: commands on store files.
struct StoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Work with Core Data SQLite stores.",
        subcommands: [StoreModelCommand.self]
    )
}
