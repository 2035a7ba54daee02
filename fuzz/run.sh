#!/usr/bin/env bash
# Runs every libFuzzer target for SECONDS seconds each (default 60) and prints, per target, the
# executions and crashes. Seeds: fuzz/corpus/<target> (committed); new inputs go to
# fuzz/.build/corpus/<target>; crashes to fuzz/.build/crashes/<target>/.
#   fuzz/run.sh [SECONDS] [--ci]
# --ci: only the committed seed corpus, a fixed seed, no new corpus written (reproducible).
# Needs the package's debug build (`swift build`), which fuzz/build.py links against. Every target
# is built first; then as many run at once as the machine has cores (each fuzzer is one thread).
set -u
cd "$(dirname "$0")/.." || exit 1
SECONDS_EACH=${1:-60}
MODE=${2:-}
TARGETS="broker-packet subscription-tree command-payload phrase-matcher config-loader hap-framing"
[ -f .build/debug.yaml ] || swift build || exit 1
for t in $TARGETS; do
    python3 fuzz/build.py "$t" || exit 1
done

# run_target TARGET: runs it, writes its summary line to fuzz/.build/TARGET.summary; fails on a crash.
run_target() {
    local t=$1 dirs extra log="fuzz/.build/$1.log" rc runs crashes
    mkdir -p "fuzz/.build/crashes/$t" "fuzz/.build/corpus/$t"
    if [ "$MODE" = "--ci" ]; then
        extra="-seed=1 -runs=-1"
        # Nothing new is written into the committed corpus: read it from a scratch copy.
        rm -rf "fuzz/.build/ci-corpus/$t"; mkdir -p "fuzz/.build/ci-corpus/$t"
        cp fuzz/corpus/"$t"/* "fuzz/.build/ci-corpus/$t/"
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
    echo "fuzz $t: ${runs:-0} executions, $crashes crash file(s)" > "fuzz/.build/$t.summary"
    if [ $rc -ne 0 ]; then
        echo "fuzz $t: FAILED (exit $rc), see $log and fuzz/.build/crashes/$t/"
        grep -a -m 5 -E "Fatal error|ERROR: |SUMMARY" "$log"
        return 1
    fi
}
export -f run_target
export SECONDS_EACH MODE

status=0
rm -f fuzz/.build/*.summary
# shellcheck disable=SC2086
printf '%s\n' $TARGETS | xargs -P "$(nproc)" -I{} bash -c 'run_target "$1"' _ {} || status=1
echo
for t in $TARGETS; do cat "fuzz/.build/$t.summary" 2> /dev/null || { echo "fuzz $t: did not run"; status=1; }; done
exit $status
