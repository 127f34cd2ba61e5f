#!/usr/bin/env bash
# Measures how much of Apple's public Core Data Swift API OpenCoreData declares.
#
# Dumps the OpenCoreData module's public symbol graph, maps each symbol to the dotted path Apple's
# `public-surface.tsv` uses (`NSManagedObjectContext.perform(_:)`, `CocoaError.Code.managedObjectMerge`,
# `NSSQLiteStoreType`), leaves out CloudKit and Spotlight API (no Linux counterpart), and prints
# covered/total and the percentage (OpenCoreDataCombine's extensions of OpenCoreData's types count too, listed
# apart). The missing paths go to a file, one per line with their kind.
#
#   Scripts/api-coverage.sh                       # build if needed, measure
#   SURFACE=path/to/public-surface.tsv MISSING=/tmp/missing.tsv Scripts/api-coverage.sh
#
# Needs: swift (builds the package once, then `swift package dump-symbol-graph`) and python3.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
surface="${SURFACE:-$root/../shared/corpus/apple-api/public-surface.tsv}"
missing="${MISSING:-$root/.build/api-coverage-missing.tsv}"

if [[ ! -f "$surface" ]]; then
    echo "api-coverage: Apple's surface list not found at $surface (set SURFACE=…)" >&2
    exit 2
fi

# dump-symbol-graph builds what is out of date, then writes one JSON file per module (and per extended module).
output="$(swift package dump-symbol-graph --minimum-access-level public 2>&1)" || {
    echo "$output" | tail -20 >&2
    exit 1
}
graphs="$(echo "$output" | sed -n 's/^Files written to //p' | tail -1)"
if [[ -z "$graphs" || ! -d "$graphs" ]]; then
    echo "api-coverage: could not find the symbol graph directory in the output of dump-symbol-graph" >&2
    echo "$output" | tail -5 >&2
    exit 1
fi

mkdir -p "$(dirname "$missing")"
python3 "$root/Scripts/api-coverage.py" --surface "$surface" --graphs "$graphs" --module OpenCoreData --companion OpenCoreDataCombine --missing "$missing"
