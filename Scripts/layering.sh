#!/usr/bin/env bash
# The layering of Sources/OpenCoreData, measured from the code (README "Layout", DESIGN.md §3).
#
#   Scripts/layering.sh            prints which folder uses which (a folder uses another when one of its files names,
#                                  outside comments, a type declared at the top level of a file of the other), the
#                                  number of folder-to-folder dependencies, and those that run upward in LAYERS
#   Scripts/layering.sh --why A B  lists the files of folder A and the type names of folder B they use
#   Scripts/layering.sh --check    also fails (exit 1) if a file outside Stores/ names a concrete store class, or a
#                                  file of the internal store contract or of a store implementing it (SQLite,
#                                  in-memory, binary) names NSManagedObjectContext (Apple's public custom-store
#                                  API, Atomic/ and Incremental/, passes contexts, as Apple's does), or if README.md
#                                  does not state the figures measured here
#
# Folders are the first path component under Sources/OpenCoreData, except Stores/, whose subfolders count on their
# own (Stores/Contract, Stores/SQLite, …). Only type names are matched: a free function or an extension method of a
# type of another folder is not seen, so the counts are a lower bound.
set -euo pipefail
cd "$(dirname "$0")/.."
root=Sources/OpenCoreData

# The layers, lowest first: a folder may use the folders before it.
LAYERS="Support Predicate Foundation Model ModelFile Stores Stores/Contract Stores/XML Stores/InMemory Stores/SQLite Stores/Atomic Stores/Binary Stores/Incremental Stores/BuiltIn Object Unsafe Coordinator History Context Fetch FetchedResults Migration Container"

folder_of() {   # path → folder
    local rel=${1#"$root"/}
    case "$rel" in
        Stores/*/*) echo "Stores/$(echo "$rel" | cut -d/ -f2)" ;;
        */*) echo "${rel%%/*}" ;;
        *) echo "." ;;
    esac
}

files=$(find "$root" -name '*.swift' | sort)
map=$(mktemp); trap 'rm -f "$map"' EXIT
for file in $files; do
    folder=$(folder_of "$file")
    # Exports.swift's typealiases only re-export the predicate classes under OpenCoreData's name (they are
    # Predicate's types, a target of its own): they own no name.
    [ "$folder" = "." ] && continue
    sed -nE 's/^(@[A-Za-z]+(\([^)]*\))? +)*((public|open|internal|package|fileprivate|private|final|indirect) +)*(class|struct|enum|protocol|actor|typealias) +([A-Za-z_][A-Za-z0-9_]*).*/\6/p' "$file" \
        | while read -r type; do echo "$type $folder"; done
done | sort -u > "$map"

if [ "${1:-}" = "--why" ]; then
    for file in $files; do
        [ "$(folder_of "$file")" = "$2" ] || continue
        sed -E 's://.*$::; s/"([^"\\]|\\.)*"/""/g' "$file" | grep -oE '[A-Za-z_][A-Za-z0-9_]*' | sort -u \
            | awk -v to="$3" -v file="$file" 'NR == FNR { if ($2 == to) owned[$1] = 1; next } ($1 in owned) { print file ": " $1 }' "$map" -
    done
    exit 0
fi

edges=$(for file in $files; do
    folder=$(folder_of "$file")
    # Code only: line comments and doc comments dropped, string literals blanked.
    sed -E 's://.*$::; s/"([^"\\]|\\.)*"/""/g' "$file" | grep -oE '[A-Za-z_][A-Za-z0-9_]*' | sort -u \
        | awk -v folder="$folder" 'NR == FNR { owner[$1] = owner[$1] " " $2; next } ($1 in owner) { n = split(owner[$1], f, " "); for (i = 1; i <= n; i++) if (f[i] != folder) print folder " -> " f[i] }' "$map" -
done | sort -u)

rank() { local i=0; for layer in $LAYERS; do [ "$layer" = "$1" ] && { echo $i; return; }; i=$((i + 1)); done; echo 99; }
echo "$edges"
used=$(echo "$edges" | grep -c . || true)
folders=$(for file in $files; do folder_of "$file"; done | sort -u | grep -vc '^\.$')
upward=$(echo "$edges" | while read -r from _ to; do [ -n "$from" ] && [ "$(rank "$from")" -lt "$(rank "$to")" ] && echo "$from -> $to"; done || true)
echo
echo "$folders folders, $((folders * (folders - 1))) possible folder-to-folder dependencies, $used used, $(echo "$upward" | grep -c . || true) upward:"
echo "$upward"

if [ "${1:-}" = "--check" ]; then
    status=0
    concrete=$(grep -rnE '\b(SQLiteStore|InMemoryStore|BinaryStore)\b' "$root" --include='*.swift' | grep -v "^$root/Stores/" \
        | grep -vE '^[^:]+:[0-9]+:\s*//' || true)
    if [ -n "$concrete" ]; then
        echo; echo "Files outside Stores/ name a concrete store class:"; echo "$concrete"; status=1
    fi
    contexts=$(grep -rnE '\bNSManagedObjectContext\b' "$root/Stores/Contract" "$root/Stores/SQLite" "$root/Stores/InMemory" "$root/Stores/Binary" --include='*.swift' \
        | grep -vE '^[^:]+:[0-9]+:\s*//' || true)
    if [ -n "$contexts" ]; then
        echo; echo "The internal store contract or a store implementing it names NSManagedObjectContext:"; echo "$contexts"; status=1
    fi
    summary="$folders folders, $((folders * (folders - 1))) possible folder-to-folder dependencies, $used used, $(echo "$upward" | grep -c . || true) upward."
    if ! grep -qF "$summary" README.md; then
        echo; echo "README.md (Layout) does not state the measured layering: \"$summary\""; status=1
    fi
    [ $status -eq 0 ] && echo && echo "Store boundary: no concrete store named above Stores/, no context in the internal contract or its stores; README's layering figures are current."
    exit $status
fi
