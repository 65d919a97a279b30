"""Allow ``python -m arena``."""

from arena.cli import cli

if __name__ == "__main__":
    cli(prog_name="arena")
