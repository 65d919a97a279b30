"""What a command imports before it does its work, and what a run imports while its games are played.

Not timed (benchmarks/startup.py and benchmarks/scale.py time it): these check
the mechanisms that keep a run's serial start and end short. The jail's modules
are imported only by a sandboxed run (or a command that uses them), tabulate
and wcwidth only by a command that draws a table; ``arena run`` imports its
leaderboard's modules in a thread while the games are played, and a fork of
the process waits for that thread, so that no child inherits a half-imported module.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

#: the jail's modules, which ``--sandbox none`` never uses
JAIL = ("arena.sandbox.seat", "arena.sandbox.process", "arena.sandbox.launch_template", "arena.sandbox.host",
        "arena.sandbox.freezer")
#: what draws tables
TABLES = ("tabulate", "wcwidth")
#: what plays and stores games, which a command's help and the other commands' start never need
RUNS = ("arena.runs.loop", "arena.runs.store", "arena.tournament.config", "numpy")


def run_python(code: str, cwd: Path | None = None) -> str:
    """The last line ``code`` printed in a fresh interpreter (it must succeed)."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, cwd=cwd,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()[-1]


def test_the_command_line_and_its_help_import_neither_the_jail_nor_tabulate_nor_the_runs():
    watched = JAIL + TABLES + RUNS
    found = json.loads(run_python(f"""
        import json, sys
        from arena.cli import cli
        for args in (["--help"], ["run", "--help"], ["play", "--help"], ["compare", "--help"]):
            try:
                cli.main(args, standalone_mode=False)
            except SystemExit:
                pass
        print(json.dumps([name for name in {watched!r} if name in sys.modules]))
    """))
    assert found == []


def test_a_table_is_still_drawn_where_one_is_asked_for():
    out = run_python("""
        from arena.cli import cli
        cli.main(["games"], standalone_mode=False)
        import sys
        print("tabulate" in sys.modules)
    """)
    assert out == "True"


TOURNAMENT = """\
[tournament]
name = "small"
seed = 1
deals = 2
[[games]]
name = "modern-art"
players = 4
[[bots]]
spec = "random"
[[bots]]
spec = "b2=random"
[[bots]]
spec = "b3=random"
[[bots]]
spec = "b4=random"
"""


def test_a_run_without_sandbox_leaves_the_jail_out_and_imports_its_leaderboard_while_playing(tmp_path):
    (tmp_path / "small.toml").write_text(TOURNAMENT)
    found = json.loads(run_python(f"""
        import json, sys, threading
        importers = {{}}
        def audit(event, args):
            if event == "import" and args[0] in ("tabulate", "numpy", "arena.standings.board"):
                importers.setdefault(args[0], threading.current_thread().name)
        sys.addaudithook(audit)
        from arena.cli import cli
        try:
            cli.main(["run", "small.toml", "--sandbox", "none", "-j", "1"], standalone_mode=False)
        finally:
            print(json.dumps({{"jail": [name for name in {JAIL!r} if name in sys.modules], "by": importers}}))
    """, cwd=tmp_path))
    assert found["jail"] == []
    assert found["by"] == {"tabulate": "arena-warmup", "numpy": "arena-warmup", "arena.standings.board": "arena-warmup"}
    assert (tmp_path / "results" / "small" / "leaderboard.md").exists()


def test_a_fork_during_the_warm_up_waits_for_it_and_the_child_holds_the_whole_module(tmp_path):
    (tmp_path / "slow_module.py").write_text("import time\ntime.sleep(0.5)\nDONE = True\n")
    out = run_python("""
        import os, sys, time
        sys.path.insert(0, os.getcwd())
        from arena.runs import warmup
        warmup.import_during_play("slow_module")
        warmup.start()
        time.sleep(0.1)  # the thread is in the middle of the import
        pid = os.fork()
        if pid == 0:
            module = sys.modules.get("slow_module")
            os._exit(0 if getattr(module, "DONE", False) else 3)
        _, status = os.waitpid(pid, 0)
        print(os.waitstatus_to_exitcode(status))
    """, cwd=tmp_path)
    assert out == "0"
