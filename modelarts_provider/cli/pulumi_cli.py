"""The pulumi CLI the command-line tools run: core/engine_cli.py finds it (the providers run it too)."""

from ..core.engine_cli import engine_bin, find_pulumi, pinned_version

__all__ = ["engine_bin", "find_pulumi", "pinned_version"]
