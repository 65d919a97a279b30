#!/usr/bin/env bash
# The regression gate of a bot's own repository, run by .github/workflows/arena.yml on every pull
# request (`arena new-bot` writes both; arena's docs/ci/ holds the same files as arena.yml and
# arena-gate.sh, and its README.md explains them). Run it anywhere, from the repository's root:
#
#   ARENA_BASE_REF=main bash .github/arena-gate.sh
#
# It compares the bot as this commit has it (the candidate) with the bot at ARENA_BASE_REF (the
# baseline) by `arena compare`: paired games in every seat, with the same cards and seeds, until its
# sequential test decides. The baseline is the base commit's package copied under another name
# (PACKAGE_base, every PACKAGE in its Python files rewritten: imports and names such as
# importlib.resources.files("PACKAGE")), so both play side by side, each with its own data files. The verdict is
# appended to $GITHUB_STEP_SUMMARY; the exit status is arena compare's: 0 not worse, 1 a
# regression (the check fails), 3 no verdict within --max-games (a warning, unless
# ARENA_FAIL_ON_NO_VERDICT=true), 2 a bad setting. Games are stored in ARENA_RESULTS/gate and
# reused while the bots' versions (their files) are unchanged: there is no --fresh, so keep that
# folder between runs (the workflow caches it) and only what changed is played again.
#
# Settings (environment variables, with their defaults):
#   ARENA_BASE_REF                the commit to compare with (required): the pull request's base
#   ARENA_BOT=PACKAGE.bot:Bot     the bot's class as MODULE:CLASS, PACKAGE being the package of the
#                                 arena entry point in pyproject.toml (the layout `arena new-bot` writes)
#   ARENA_GAME=modern-art  ARENA_PLAYERS=4
#   ARENA_RESULTS=results  ARENA_JOBS=<cores>  ARENA_SANDBOX=process
#   ARENA_COMPARE_OPTIONS=        more `arena compare` options, e.g. "--sprt 0,-10 --max-games 4000"
#   ARENA_FAIL_ON_NO_VERDICT=false
set -euo pipefail

base_ref=${ARENA_BASE_REF:?set ARENA_BASE_REF to the commit to compare with, e.g. the pull request base}
results=${ARENA_RESULTS:-results}
summary=${GITHUB_STEP_SUMMARY:-/dev/null}

# The bot's name and package: the arena entry point of pyproject.toml (name = "package.plugin").
read -r name package < <(python3 -c '
import tomllib
points = tomllib.load(open("pyproject.toml", "rb"))["project"]["entry-points"]["arena"]
name, target = next(iter(points.items()))
print(name, target.split(".")[0])')
bot=${ARENA_BOT:-$package.bot:Bot}
module=${bot%%:*}
if [ "${module%%.*}" != "$package" ]; then
    echo "::error::ARENA_BOT=$bot: its module is not in the package $package" >&2
    exit 2
fi

if ! git cat-file -e "$base_ref:$package" 2>/dev/null; then
    echo "::notice::no $package/ at $base_ref (a new bot): nothing to compare with"
    echo "arena gate: no \`$package/\` at \`$base_ref\`, nothing to compare with" >> "$summary"
    exit 0
fi

# The baseline: the base commit's package, renamed PACKAGE_base, in a folder of its own.
baseline="$results/.gate-baseline"
rm -rf "$baseline"
mkdir -p "$baseline"
git archive "$base_ref" "$package" | tar -x -C "$baseline"
mv "$baseline/$package" "$baseline/${package}_base"
python3 - "$baseline/${package}_base" "$package" <<'PYTHON'
import pathlib, re, sys
folder, package = pathlib.Path(sys.argv[1]), sys.argv[2]
name = re.compile(rf"\b{package}\b")
for path in folder.rglob("*.py"):
    path.write_text(name.sub(f"{package}_base", path.read_text()))
PYTHON
PYTHONPATH="$(cd "$baseline" && pwd)${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONPATH

status=0
# shellcheck disable=SC2086  # ARENA_COMPARE_OPTIONS is a list of options
arena compare "${ARENA_GAME:-modern-art}" --players "${ARENA_PLAYERS:-4}" \
    --candidate "$name=py:$bot" --baseline "$name-base=py:${package}_base${bot#"$package"}" \
    --name gate --results "$results" -j "${ARENA_JOBS:-$(nproc)}" --sandbox "${ARENA_SANDBOX:-process}" \
    ${ARENA_COMPARE_OPTIONS:-} || status=$?
case $status in
    0) ;;
    1) echo "::error::arena compare: $name is a regression against $base_ref" ;;
    3) echo "::warning::arena compare: no verdict within the maximum number of games"
       if [ "${ARENA_FAIL_ON_NO_VERDICT:-false}" != true ]; then
           status=0
       fi ;;
    *) echo "arena gate: \`arena compare\` failed (exit status $status)" >> "$summary" ;;
esac
exit "$status"
