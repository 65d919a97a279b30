"""The regression gate ``arena new-bot`` writes into a bot's repository: a GitHub Actions workflow and its script.

They are the same files as arena's ``docs/ci/arena.yml`` and ``docs/ci/arena-gate.sh`` (a test keeps
them equal), so a bot author gets the recipe of docs/ci/README.md unchanged, by construction. Nothing
in them names arena's repository: arena comes from the bot's own ``pyproject.toml``, whose
``knizia-arena`` dependency :mod:`arena.authoring.pin` wrote.
"""

from __future__ import annotations

#: where each file goes in the bot's repository
WORKFLOW_PATH = ".github/workflows/arena.yml"
SCRIPT_PATH = ".github/arena-gate.sh"

WORKFLOW = r'''# The regression gate of a bot's own repository: on every pull request, the bot as the pull request
# leaves it is compared with the bot at the pull request's base commit by `arena compare`, the
# verdict goes to the job summary, and a regression fails the check. `arena new-bot` writes this
# file as .github/workflows/arena.yml and the script it runs as .github/arena-gate.sh; arena's
# docs/ci/ holds the same two files and its README.md explains them. Nothing here needs editing:
# arena is the one pyproject.toml pins (the knizia-arena dependency `arena new-bot` wrote).
name: arena

on:
  pull_request:

permissions:
  contents: read

jobs:
  gate:
    runs-on: ubuntu-latest
    timeout-minutes: 60
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0   # the base commit too

      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"

      - name: Install the bot and the arena it pins
        run: python -m pip install -e '.[test]'

      - name: Test the bot
        run: python -m pytest

      # Games are kept between runs under a key naming the games' versions (arena games: their
      # rules and arena's game loop) and both versions of the bot (git's hashes of their files):
      # an exact hit replays nothing. Otherwise the newest
      # earlier results come back, and `arena compare` plays only the games of a bot whose
      # version changed (a new commit on the pull request replays the candidate's games, never
      # the base's).
      - name: Versions compared
        id: versions
        env:
          BASE: ${{ github.event.pull_request.base.sha }}
        run: |
          versions=$(arena games; git rev-parse "$BASE^{tree}" "HEAD^{tree}")
          echo "key=arena-gate-$(echo "$versions" | sha256sum | cut -c1-16)" >> "$GITHUB_OUTPUT"

      - name: Restore earlier games
        id: results
        uses: actions/cache/restore@v4
        with:
          path: results
          key: ${{ steps.versions.outputs.key }}
          restore-keys: arena-gate-

      - name: Compare with the base commit
        env:
          ARENA_BASE_REF: ${{ github.event.pull_request.base.sha }}
        run: bash .github/arena-gate.sh

      - name: Keep the games for the next run
        if: always() && steps.results.outputs.cache-hit != 'true'
        uses: actions/cache/save@v4
        with:
          path: results
          key: ${{ steps.versions.outputs.key }}

      - name: Upload the games
        if: always()
        uses: actions/upload-artifact@v4
        with:
          name: arena-gate
          path: results/
          include-hidden-files: true
'''

SCRIPT = r'''#!/usr/bin/env bash
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
'''

#: path in the bot's repository -> text, and whether it is executable
FILES = {WORKFLOW_PATH: (WORKFLOW, False), SCRIPT_PATH: (SCRIPT, True)}
