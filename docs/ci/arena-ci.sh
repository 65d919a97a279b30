#!/usr/bin/env bash
# CI of arena's own repository (not of a bot's: that is arena.yml and arena-gate.sh, which
# `arena new-bot` writes). No workflow in docs/ci/ runs this script: a workflow of arena's
# repository runs it as a step, `bash docs/ci/arena-ci.sh`, with its results folder cached
# (docs/ci/README.md, "In arena's own repository"); it runs anywhere else the same way.
#
#  1. keeps the leaderboard of the previous run (restored from the CI cache) aside;
#  2. runs the tournament, reusing every stored game whose bots, game and settings are unchanged;
#  3. publishes the leaderboard and what changed since the previous run
#     (to $GITHUB_STEP_SUMMARY, and to RESULTS/comment.md for a pull-request comment);
#  4. runs `arena compare` of the candidate against the baseline and exits 1 on a regression.
#
# Settings (environment variables, with their defaults):
#   ARENA_TOURNAMENT=tournaments/demo.toml  the tournament file
#   ARENA_RESULTS=results                   results root, the folder the CI cache keeps
#   ARENA_FRESH=false                       true: discard the stored games first (--fresh); never needed
#                                           for correctness, stored games are reused by version
#   ARENA_JOBS=<cores>  ARENA_SANDBOX=process
#   ARENA_COMPARE_GAME=modern-art  ARENA_COMPARE_PLAYERS=4
#   ARENA_CANDIDATE=appraiser               the bot under test, as built from this commit
#   ARENA_BASELINE=random                   the bot it must not be worse than, or, with
#   ARENA_BASE_REF=<git ref>                the candidate's own module at that commit:
#   ARENA_BASE_FILE=bots/arena_bots/modern_art_heuristic.py  ARENA_BASE_CLASS=ModernArtHeuristic
#   ARENA_COMPARE_OPTIONS=                  more `arena compare` options, e.g. --max-games 4000
#   ARENA_FAIL_ON_NO_VERDICT=false          true: no verdict within --max-games fails the run too
set -euo pipefail

tournament=${ARENA_TOURNAMENT:-tournaments/demo.toml}
results=${ARENA_RESULTS:-results}
jobs=${ARENA_JOBS:-$(nproc)}
sandbox=${ARENA_SANDBOX:-process}
summary=${GITHUB_STEP_SUMMARY:-/dev/null}
comment="$results/comment.md"

name=$(python3 -c 'import sys, tomllib; print(tomllib.load(open(sys.argv[1], "rb"))["tournament"]["name"])' \
       "$tournament")
folder="$results/$name"
mkdir -p "$results"
rm -f "$comment"

# 1. The standings before this run, if the cache brought them back.
previous="$results/previous-leaderboard.json"
rm -f "$previous"
if [ -f "$folder/leaderboard.json" ]; then
    cp "$folder/leaderboard.json" "$previous"
fi

# 2. The tournament.
fresh=()
if [ "${ARENA_FRESH:-false}" = true ]; then
    fresh=(--fresh)
fi
arena run "$tournament" --results "$results" -j "$jobs" --sandbox "$sandbox" "${fresh[@]}"

# 3. The leaderboard, and what changed since the previous run.
arena leaderboard "$folder" --format markdown >> "$summary"
if [ -f "$previous" ]; then
    arena leaderboard "$folder" --diff "$previous" --format markdown > "$comment"
    cat "$comment" >> "$summary"
fi

# 4. The regression test: candidate against baseline.
baseline=${ARENA_BASELINE:-random}
if [ -n "${ARENA_BASE_REF:-}" ]; then
    base_file=${ARENA_BASE_FILE:-bots/arena_bots/modern_art_heuristic.py}
    if ! git cat-file -e "$ARENA_BASE_REF:$base_file" 2>/dev/null; then
        echo "::notice::no $base_file at '$ARENA_BASE_REF' (a new bot or a new branch): no regression test"
        exit 0
    fi
    mkdir -p "$results/baseline"
    git show "$ARENA_BASE_REF:$base_file" > "$results/baseline/arena_baseline.py"
    PYTHONPATH="$(cd "$results/baseline" && pwd)${PYTHONPATH:+:$PYTHONPATH}"
    export PYTHONPATH
    baseline="base=py:arena_baseline:${ARENA_BASE_CLASS:-ModernArtHeuristic}"
fi
status=0
# shellcheck disable=SC2086  # ARENA_COMPARE_OPTIONS is a list of options
arena compare "${ARENA_COMPARE_GAME:-modern-art}" --players "${ARENA_COMPARE_PLAYERS:-4}" \
    --candidate "${ARENA_CANDIDATE:-appraiser}" --baseline "$baseline" --name ci-compare \
    --results "$results" -j "$jobs" --sandbox "$sandbox" "${fresh[@]}" ${ARENA_COMPARE_OPTIONS:-} || status=$?
if [ -f "$results/ci-compare/compare.md" ]; then
    cat "$results/ci-compare/compare.md" >> "$comment"
fi
case $status in
    0) ;;
    1) echo "::error::arena compare: ${ARENA_CANDIDATE:-appraiser} is a regression against $baseline" ;;
    3) echo "::warning::arena compare: no verdict within the maximum number of games"
       if [ "${ARENA_FAIL_ON_NO_VERDICT:-false}" != true ]; then
           status=0
       fi ;;
esac
exit "$status"
