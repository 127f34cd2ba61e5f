#!/usr/bin/env bash
# Builds the seed corpora of the fuzz targets in Fuzz/corpus/ (not committed) from the shared corpus
# (../../shared/corpus relative to Fuzz/, or $OPENCOREDATA_CORPUS). Store files are copied, never opened in place.
set -euo pipefail
cd "$(dirname "$0")"
CORPUS="${OPENCOREDATA_CORPUS:-$(cd ../.. && pwd)/shared/corpus}"
[ -d "$CORPUS" ] || { echo "No shared corpus at $CORPUS (set OPENCOREDATA_CORPUS)" >&2; exit 1; }
OUT=corpus
rm -rf "$OUT"; mkdir -p "$OUT"/{FuzzPredicateParser,FuzzModelXML,FuzzStoreMetadata,FuzzStoreMetadataPlist}

# Predicates: every format string of the conformance cases, one file each.
python3 - "$CORPUS/predicates/cases.jsonl" "$OUT/FuzzPredicateParser" <<'PY'
import json, sys, hashlib, os
for line in open(sys.argv[1], encoding="utf-8"):
    line = line.strip()
    if not line: continue
    case = json.loads(line)
    fmt = case.get("format")
    if not isinstance(fmt, str): continue
    data = fmt.encode("utf-8")
    open(os.path.join(sys.argv[2], hashlib.sha1(data).hexdigest()), "wb").write(data)
PY

# Models: the Xcode `contents` files.
cp "$CORPUS"/models/*.xml "$OUT/FuzzModelXML/"

# Stores: each SQLite store copied with its -wal/-shm into a scratch directory, checkpointed into one file and
# vacuumed at 512-byte pages (small seeds for libFuzzer), then its Z_METADATA plist extracted for the plist target.
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
for store in "$CORPUS"/stores/*; do
    case "$store" in *-wal|*-shm|*.tsv) continue ;; esac
    head -c 16 "$store" | grep -q "SQLite format 3" || continue
    name=$(basename "$store")
    cp "$store" "$SCRATCH/$name"; chmod u+w "$SCRATCH/$name"
    for side in wal shm; do [ -f "$store-$side" ] && cp "$store-$side" "$SCRATCH/$name-$side" && chmod u+w "$SCRATCH/$name-$side"; done
    sqlite3 "$SCRATCH/$name" "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode=DELETE; PRAGMA page_size=512; VACUUM;" >/dev/null
    cp "$SCRATCH/$name" "$OUT/FuzzStoreMetadata/$name"
    sqlite3 "$SCRATCH/$name" "SELECT writefile('$OUT/FuzzStoreMetadataPlist/$name.plist', Z_PLIST) FROM Z_METADATA;" >/dev/null
done
# The plist target's template: the smallest store that has a model cache.
cp "$CORPUS/stores/alemar11__CoreDataPlus__SampleModel3_V1.sqlite" "$OUT/template.sqlite"
for t in "$OUT"/Fuzz*; do echo "$(basename "$t"): $(ls "$t" | wc -l) seeds, $(du -sk "$t" | cut -f1) KB"; done
