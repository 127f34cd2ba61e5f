// `coredata`: command-line tools for Core Data models and stores, on Linux.
//
//     coredata model show Moody.xcdatamodeld
//     coredata model diff "Moody 5.xcdatamodel" "Moody 6.xcdatamodel"
//     coredata model codegen Moody.xcdatamodeld --output Sources/Model
//     coredata model compile Moody.xcdatamodeld Moody.momd
//     coredata store info Moody.sqlite --model Moody.xcdatamodeld
//     coredata store query Moody.sqlite --entity Mood --predicate "rating > 3" --sort -date --limit 5
//     coredata store schema Moody.xcdatamodeld
//     coredata store migrate Moody.sqlite --model Moody.xcdatamodeld
//     coredata store check Moody.sqlite
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
        subcommands: [ModelShowCommand.self, ModelDiffCommand.self, ModelCodegenCommand.self, ModelCompileCommand.self]
    )
}

/// `coredata store …`: commands on store files.
struct StoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Work with Core Data SQLite stores.",
        subcommands: [StoreInfoCommand.self, StoreQueryCommand.self, StoreSchemaCommand.self, StoreMigrateCommand.self, StoreCheckCommand.self, StoreModelCommand.self]
    )
}
