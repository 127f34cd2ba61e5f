#!/usr/bin/env bash
# Builds and runs the libFuzzer targets (see RELIABILITY.md, "Fuzzing").
#
#   Fuzz/run.sh all -runs=10000000                 # each target for 10 million executions, one after another
#   Fuzz/run.sh FuzzModelXML -max_total_time=600   # one target for 10 minutes
#   Fuzz/run.sh FuzzPredicateParser crash-file     # replay an input (any libFuzzer flags or files pass through)
#   FUZZ_SANITIZERS=fuzzer,address,undefined Fuzz/run.sh all -runs=1000000   # under ASan and UBSan
#
# The seed corpora are generated from the shared corpus by make-corpus.sh into Fuzz/corpus/ (not committed); new
# inputs the fuzzer finds go to Fuzz/corpus/work/<target>, crashes to Fuzz/artifacts/<target>/. FUZZ_NO_BUILD=1
# skips the build. FUZZ_SANITIZERS (comma-separated; default: fuzzer) picks the sanitizers: `fuzzer` (coverage, always
# needed), `address` (AddressSanitizer for Swift and C; libFuzzer then also reports leaks), `undefined`
# (UndefinedBehaviorSanitizer, fatal on the first report). Swift on Linux refuses `-sanitize=undefined` for Swift code
# (Swift itself traps on overflow, out-of-bounds and nil unwraps), so `undefined` instruments the package's C: the C
# targets and the inline C functions of the module headers Swift imports. SQLite and zlib are the system's libraries and
# are not instrumented. Each set builds in its own directory, Fuzz/.build/<set>, so switching does not rebuild everything.
set -euo pipefail
cd "$(dirname "$0")"
[ $# -ge 1 ] || { sed -n '2,16p' "$0"; exit 2; }
TARGET="$1"; shift
SANITIZERS="${FUZZ_SANITIZERS:-fuzzer}"
BUILD=".build/${SANITIZERS//,/-}"
SWIFT_SANITIZERS=""
FLAGS=()
for sanitizer in ${SANITIZERS//,/ }; do
    case "$sanitizer" in
        fuzzer) SWIFT_SANITIZERS+="${SWIFT_SANITIZERS:+,}fuzzer"; FLAGS+=(-Xcc -fsanitize=fuzzer-no-link) ;;
        address) SWIFT_SANITIZERS+="${SWIFT_SANITIZERS:+,}address"; FLAGS+=(-Xcc -fsanitize=address) ;;
        undefined) FLAGS+=(-Xcc -fsanitize=undefined -Xcc -fno-sanitize-recover=undefined) ;;
        *) echo "Unknown sanitizer '$sanitizer' (fuzzer, address, undefined)" >&2; exit 2 ;;
    esac
done
[[ ",$SWIFT_SANITIZERS," == *,fuzzer,* ]] || { echo "FUZZ_SANITIZERS must include fuzzer" >&2; exit 2; }
if [ "${FUZZ_NO_BUILD:-0}" != 1 ]; then
    swift build -c release --scratch-path "$BUILD" -Xswiftc "-sanitize=$SWIFT_SANITIZERS" -Xswiftc -parse-as-library \
        -Xswiftc -use-ld=lld "${FLAGS[@]}" 2>&1 | grep -E "error|warning:" | sort -u || true
fi
[ -d corpus/FuzzPredicateParser ] || ./make-corpus.sh

max_len() {
    case "$1" in
        FuzzPredicateParser) echo 1024 ;;       # format strings
        FuzzModelXML) echo 65536 ;;             # the corpus models' contents files are up to ~60 KB
        FuzzStoreMetadata) echo 65536 ;;        # 512-byte-page stores: the small seeds fit whole
        FuzzStoreMetadataPlist) echo 8192 ;;    # the corpus Z_PLIST blobs are 1–3 KB
    esac
}

run_one() {
    local target="$1"; shift
    local bin="$BUILD/release/$target"
    [ -x "$bin" ] || { echo "No $bin (build failed?)" >&2; exit 1; }
    mkdir -p "corpus/work/$target" "artifacts/$target"
    local log="artifacts/$target/last-run-${SANITIZERS//,/-}.log"
    echo "== $target (max_len $(max_len "$target"), sanitizers $SANITIZERS)"
    local status=0
    FUZZ_STORE_TEMPLATE="$PWD/corpus/template.sqlite" "$bin" -max_len="$(max_len "$target")" -timeout=10 \
        -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="artifacts/$target/" \
        "corpus/work/$target" "corpus/$target" "$@" >"$log" 2>&1 || status=$?
    grep -E "^==[0-9]+==|ERROR|SUMMARY|runtime error|Test unit written|^Done|stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb" "$log" || true
    local runs rate
    runs=$(grep -o "stat::number_of_executed_units: *[0-9]*" "$log" | grep -o "[0-9]*$" || echo "?")
    rate=$(grep -o "stat::average_exec_per_sec: *[0-9]*" "$log" | grep -o "[0-9]*$" || echo "?")
    echo "$target: $runs executions, $rate executions/s, exit status $status (log: Fuzz/$log)"
    return "$status"
}

if [ "$TARGET" = all ]; then
    failed=0
    for t in FuzzPredicateParser FuzzModelXML FuzzStoreMetadata FuzzStoreMetadataPlist; do
        run_one "$t" "$@" || failed=1
    done
    exit "$failed"
fi
run_one "$TARGET" "$@"
