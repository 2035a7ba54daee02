#!/bin/sh
# Runs every libFuzzer target for SECONDS seconds each (default 60) and prints, per target, the
# executions and crashes. Seeds: fuzz/corpus/<target> (committed); new inputs go to
# fuzz/.build/corpus/<target>; crashes to fuzz/.build/crashes/<target>/.
#   fuzz/run.sh [SECONDS] [--ci]
# --ci: only the committed seed corpus, a fixed seed, no new corpus written (reproducible).
# Needs the package's debug build (`swift build`), which fuzz/build.py links against.
set -u
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-60}
MODE=${2:-}
TARGETS="broker-packet subscription-tree command-payload phrase-matcher config-loader"
[ -f .build/debug.yaml ] || swift build || exit 1
status=0
summary=""
for t in $TARGETS; do
    python3 fuzz/build.py "$t" || exit 1
    mkdir -p "fuzz/.build/crashes/$t" "fuzz/.build/corpus/$t"
    log="fuzz/.build/$t.log"
    if [ "$MODE" = "--ci" ]; then
        dirs="fuzz/corpus/$t"
        extra="-seed=1 -runs=-1"
        # Nothing new is written into the committed corpus: read it from a scratch copy.
        rm -rf "fuzz/.build/ci-corpus/$t"; mkdir -p "fuzz/.build/ci-corpus/$t"
        cp fuzz/corpus/$t/* "fuzz/.build/ci-corpus/$t/"
        dirs="fuzz/.build/ci-corpus/$t"
    else
        dirs="fuzz/.build/corpus/$t fuzz/corpus/$t"
        extra=""
    fi
    # shellcheck disable=SC2086
    "fuzz/.build/$t" -max_total_time="$SECONDS_EACH" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="fuzz/.build/crashes/$t/" -print_final_stats=1 $extra $dirs > "$log" 2>&1
    rc=$?
    runs=$(grep -a "stat::number_of_executed_units" "$log" | awk '{print $2}')
    crashes=$(ls "fuzz/.build/crashes/$t" | wc -l)
    if [ $rc -ne 0 ]; then
        status=1
        echo "fuzz $t: FAILED (exit $rc), see $log and fuzz/.build/crashes/$t/"
        grep -a -m 5 -E "Fatal error|ERROR: |SUMMARY" "$log"
    fi
    summary="$summary
fuzz $t: ${runs:-0} executions, $crashes crash file(s)"
done
echo "$summary"
exit $status
