#!/usr/bin/env python3
"""Compares Apple's Core Data public Swift surface with a module's symbol graph (see api-coverage.sh)."""
import argparse
import collections
import glob
import json
import os
import re
import sys

# API that cannot exist on Linux: CloudKit mirroring and Core Spotlight indexing (matched case-insensitively
# anywhere in the path, so `NSPersistentStoreDescription.cloudKitContainerOptions` is left out too).
EXCLUDED = re.compile(r"cloudkit|ckrecord|spotlight", re.IGNORECASE)


def surface_paths(path):
    """Apple's paths (overloads share one) with the kinds declared under each."""
    kinds = collections.defaultdict(set)
    with open(path, encoding="utf-8") as tsv:
        header = tsv.readline().rstrip("\n").split("\t")
        column = {name: index for index, name in enumerate(header)}
        for line in tsv:
            fields = line.rstrip("\n").split("\t")
            kinds[fields[column["path"]]].add(fields[column["kind"]])
    return kinds


def module_paths(directory, module):
    """Dotted paths of the module's public symbols, including its extensions of other modules' types
    (`<module>@Foundation.symbols.json` holds `CocoaError.Code.…`)."""
    paths = set()
    files = glob.glob(os.path.join(directory, f"{module}.symbols.json"))
    files += glob.glob(os.path.join(directory, f"{module}@*.symbols.json"))
    if not files:
        sys.exit(f"api-coverage: no symbol graph for {module} in {directory}")
    for name in files:
        with open(name, encoding="utf-8") as handle:
            graph = json.load(handle)
        for symbol in graph["symbols"]:
            paths.add(".".join(symbol["pathComponents"]))
    return paths


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--surface", required=True)
    parser.add_argument("--graphs", required=True)
    parser.add_argument("--module", default="OpenCoreData")
    parser.add_argument("--companion", action="append", default=[],
                        help="a module whose extensions of --module's types count too, reported apart "
                             "(OpenCoreDataCombine: NSManagedObject.objectWillChange, as Apple's overlay declares it)")
    parser.add_argument("--missing", required=True)
    arguments = parser.parse_args()

    apple = surface_paths(arguments.surface)
    considered = {path: kinds for path, kinds in apple.items() if not EXCLUDED.search(path)}
    ours = module_paths(arguments.graphs, arguments.module)
    companions = set()
    for companion in arguments.companion:
        for name in glob.glob(os.path.join(arguments.graphs, f"{companion}@{arguments.module}.symbols.json")):
            with open(name, encoding="utf-8") as handle:
                companions.update(".".join(symbol["pathComponents"]) for symbol in json.load(handle)["symbols"])
    from_companions = sorted(path for path in considered if path in companions and path not in ours)
    ours |= companions
    covered = [path for path in considered if path in ours]
    missing = sorted(path for path in considered if path not in ours)

    with open(arguments.missing, "w", encoding="utf-8") as out:
        out.write("path\tkind\n")
        for path in missing:
            out.write(f"{path}\t{','.join(sorted(considered[path]))}\n")

    total = len(considered)
    print(f"Apple paths considered: {total} (of {len(apple)}; {len(apple) - total} CloudKit/Spotlight left out)")
    print(f"Covered: {len(covered)}/{total} = {100.0 * len(covered) / total:.1f} %")
    if from_companions:
        print(f"  of which from {', '.join(arguments.companion)} (an import of its own): " + ", ".join(from_companions))
    by_type = collections.Counter(path.split(".")[0] for path in missing)
    print("Missing by top-level name: " + ", ".join(f"{name} {count}" for name, count in by_type.most_common(12)))
    print(f"Missing paths: {arguments.missing}")


if __name__ == "__main__":
    main()
