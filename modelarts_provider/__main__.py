"""``python -m modelarts_provider COMMAND``: the provider's command-line tools.

    logs     print (and follow) a training job's task logs (cli/logs.py)
    results  a sweep's or a search's results table, best first, --chart PNG, --history (cli/results.py)
    outputs  list and download a job run's output files from OBS, --run N, --get DIR (cli/outputs.py)
    status   the live phase of every job of a stack, one list call (cli/status.py)
    template a clean copy of the project template (no __pycache__): pulumi new "$(python -m modelarts_provider template)"
"""

from __future__ import annotations

import argparse
import os
import sys
from importlib import import_module
from pathlib import Path

# The tools' modules, in the order `--help` lists them. Only the one named on the command line is imported (each
# pulls in its own models and clients: a third of a command's time when all four were).
TOOLS = {"logs": ".cli.logs", "results": ".cli.results", "outputs": ".cli.outputs", "status": ".cli.status"}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog="python -m modelarts_provider",
                                     description="Command-line tools of the ModelArts provider.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    named = argv[0] if argv and argv[0] in TOOLS else None
    # pydantic looks for plugins among every installed package's entry points at its first model (importlib.metadata
    # and a scan of site-packages: a tenth of a second). The tools validate only their own shapes, which no plugin is
    # for; a value the user set is kept (issue 56: under a second).
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    if named in ("logs", "status", "outputs"):  # they decrypt the client's credentials: begun before the imports
        from .cli.passphrase import start_early

        start_early(argv, os.environ)
    for name, module in TOOLS.items():
        if named in (None, name):
            import_module(module, __package__).register(commands)
    t = commands.add_parser("template", help="print the project template's directory (for pulumi new)",
                            description="Print the directory of the Python project template shipped in this "
                                        "package: pulumi new \"$(python -m modelarts_provider template)\".")
    t.set_defaults(handler=_template)
    args = parser.parse_args(argv)
    return args.handler(args)


TEMPLATE = Path(__file__).resolve().parent / "templates" / "modelarts-python"


def clean_template(cache: Path | None = None) -> Path:
    """A copy of the template without what Python generated beside it (an install compiles the template's
    `__main__.py` into `__pycache__/`, and `pulumi new` copies whatever the directory holds): under the user's
    cache, made again at each call, so a project gets the template's files and nothing else."""
    import os
    import shutil

    cache = cache or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "modelarts-pulumi"
    dest = cache / "template" / TEMPLATE.name
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(TEMPLATE, dest, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    (dest / "stacks").mkdir(exist_ok=True)  # stackConfigDir: the stack files go there, as the docs say
    return dest


def _template(_args: argparse.Namespace) -> int:
    print(clean_template())
    return 0


if __name__ == "__main__":
    sys.exit(main())
