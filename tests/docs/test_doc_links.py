"""The docs stay true to the tree: every relative link of README.md, docs/*.md and the other READMEs resolves to
a file (and a heading, GitHub's way of naming anchors), and every command their bash blocks show parses.

A command parses when its parser accepts it, without running it: `./dev X ...` needs `./dev X --help` to succeed
(no set-up), and the arguments of the Python tools behind it (`logs`, `results`, `status`, `bench`) and of every
`python -m <our module> ...` go through that tool's own argparse parser, stopped right after parsing. Nothing
here starts the engine or a cloud. The checker's own tests at the end feed it a broken link and a bogus command.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib
import io
import os
import re
import shlex
import subprocess
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import pytest

REPO = Path(__file__).resolve().parents[2]
# Pages whose links are checked; the commands are checked in the user-facing ones (README.md and docs/) and the
# emulators' READMEs.
COMMAND_PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")),
                 REPO / "modelarts_emulator" / "README.md", REPO / "obs_emulator" / "README.md"]
LINK_PAGES = [*COMMAND_PAGES, REPO / "benchmarks" / "README.md", REPO / "modelarts_provider" / "code_upload" / "README.md",
              *sorted((REPO / "benchmarks" / "results").glob("*.md"))]

FENCE = re.compile(r"^(```|~~~)")
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
INLINE_CODE = re.compile(r"`+[^`]*`+")

# ./dev commands whose single argument is one of a few words.
DEV_WORDS = {"emulator": {"start", "stop", "status"}, "obs": {"start", "stop", "status"}}
# ./dev commands that run a Python tool, and how ./dev calls it.
DEV_TOOLS = {"logs": ["modelarts_provider", "logs", "--stack", "local"],
             "results": ["modelarts_provider", "results", "--stack", "local"],
             "status": ["modelarts_provider", "status", "--stack", "local"],
             "bench": ["benchmarks"]}
# `python -m MODULE`: our modules with a command-line parser, and the function that builds and parses.
OUR_MODULES = {"modelarts_provider": "modelarts_provider.__main__:main", "modelarts_emulator": "modelarts_emulator.cli:main",
               "obs_emulator": "obs_emulator.cli:main", "benchmarks": "benchmarks.__main__:main"}


# --- reading the pages -----------------------------------------------------------------------------------------


def prose_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) outside fenced code blocks."""
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line.strip()):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line


def code_blocks(text: str, languages: tuple[str, ...] = ("bash", "sh", "shell")) -> Iterator[tuple[int, str]]:
    """(line number, line) inside fenced blocks of those languages."""
    language: str | None = None
    for number, line in enumerate(text.splitlines(), 1):
        fence = FENCE.match(line.strip())
        if fence and language is None:
            language = line.strip()[3:].strip() or "-"
            continue
        if fence:
            language = None
            continue
        if language in languages:
            yield number, line


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped (inline code marks too), spaces -> '-'."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip())  # a link in a heading: its text
    text = re.sub(r"[^\w\- ]", "", text.lower())
    return text.replace(" ", "-")


@functools.cache
def anchors(page: Path) -> frozenset[str]:
    """Every heading's anchor of a page, with GitHub's -1, -2 suffixes for repeated headings."""
    seen: dict[str, int] = {}
    found: set[str] = set()
    for _, line in prose_lines(page.read_text()):
        heading = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not heading:
            continue
        base = slug(heading[1])
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return frozenset(found)


def broken_links(page: Path, text: str | None = None) -> list[str]:
    """One line per relative link of `page` whose file (or heading) does not exist."""
    text = page.read_text() if text is None else text
    problems = []
    for number, line in prose_lines(text):
        for target in LINK.findall(INLINE_CODE.sub("", line)):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                continue
            path_part, _, anchor = target.partition("#")
            where = f"{page.relative_to(REPO)}:{number}: ({target})"
            resolved = (page.parent / path_part).resolve() if path_part else page
            if not resolved.exists():
                problems.append(f"{where}: no such file {path_part}")
            elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
                problems.append(f"{where}: no heading #{anchor} in {resolved.relative_to(REPO)}")
    return problems


# --- the commands ------------------------------------------------------------------------------------------------


def shell_commands(page_text: str) -> Iterator[tuple[int, list[str]]]:
    """(line number, argv) of each simple command in the bash blocks: comments dropped, continuations joined,
    `&&`, `||`, `|` and `;` split, leading VAR=value assignments dropped."""
    pending, start = "", 0
    for number, line in code_blocks(page_text):
        if not pending:
            start = number
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        text, pending = pending + line, ""
        lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|")
        lexer.whitespace_split = True
        lexer.commenters = "#"
        argv: list[str] = []
        tokens = [*lexer, ";"]
        for index, token in enumerate(tokens):
            if re.fullmatch(r"[0-9]*[<>]+.*", token) or (index and re.fullmatch(r"[0-9]*[<>]+", tokens[index - 1])):
                continue  # a redirection and its target
            if set(token) <= set(";&|"):
                while argv and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", argv[0]):
                    argv.pop(0)
                if argv:
                    yield start, argv
                argv = []
            else:
                argv.append(token)


@functools.cache
def dev_help(command: str) -> tuple[int, str]:
    done = subprocess.run([str(REPO / "dev"), command, "--help"], cwd=REPO, text=True, capture_output=True,
                          timeout=60, stdin=subprocess.DEVNULL)
    return done.returncode, done.stdout + done.stderr


class _Parsed(Exception):
    """Raised right after a parser accepted its arguments, so nothing runs."""


def parse_only(module: str, argv: list[str]) -> str | None:
    """None when `python -m module argv` parses; else what its parser said."""
    target, _, function = OUR_MODULES[module].partition(":")
    main = getattr(importlib.import_module(target), function)
    real = argparse.ArgumentParser.parse_args

    def parse_then_stop(self: argparse.ArgumentParser, args: list[str] | None = None,
                        namespace: argparse.Namespace | None = None) -> argparse.Namespace:
        real(self, args, namespace)
        raise _Parsed

    said = io.StringIO()
    with mock.patch.object(argparse.ArgumentParser, "parse_args", parse_then_stop), \
            contextlib.redirect_stderr(said), contextlib.redirect_stdout(said):
        try:
            main(argv)
        except _Parsed:
            return None
        except SystemExit as exit_:
            return None if exit_.code == 0 else said.getvalue().strip().splitlines()[-1]
    return "the command ran past its parser without parsing"


def command_problem(argv: list[str]) -> str | None:
    """Why a documented command does not parse, or None (also for commands that are not ours: pulumi, npm...)."""
    program = argv[0]
    if program in ("./dev", "dev"):
        if len(argv) < 2:
            return None  # ./dev alone prints its help
        command, rest = argv[1], argv[2:]
        code, said = dev_help(command)
        if code != 0:
            return f"`./dev {command} --help` failed: {said.strip()}"
        if command in DEV_WORDS and rest and rest[0] not in DEV_WORDS[command]:
            return f"./dev {command}: '{rest[0]}' is not one of {sorted(DEV_WORDS[command])}"
        if command in DEV_TOOLS:
            module, *fixed = DEV_TOOLS[command]
            return parse_only(module, [*fixed, *rest])
        return None
    if re.search(r"(^|/)python3?$", program) and argv[1:2] == ["-m"] and len(argv) > 2 and argv[2] in OUR_MODULES:
        return parse_only(argv[2], argv[3:])
    return None


def pulumi_problem(cli: Path, argv: list[str]) -> str | None:
    """`pulumi ARGS --help`: cobra parses every flag first (an unknown flag fails) and prints the help of the
    deepest command it found: a word left over where that command has subcommands is an unknown one."""
    done = subprocess.run([str(cli), *argv[1:], "--help"], text=True, capture_output=True, timeout=60,
                          stdin=subprocess.DEVNULL, env={**os.environ, "PULUMI_SKIP_UPDATE_CHECK": "true"})
    if done.returncode != 0:
        return (done.stderr or done.stdout).strip()
    usage = re.search(r"^Usage:\n\s+pulumi((?: [a-z][a-z-]*)*)", done.stdout, re.M)
    path = usage[1].split() if usage else []
    aliases = re.search(r"^Aliases:\n\s+(.*)$", done.stdout, re.M)
    names = {path[-1], *(aliases[1].replace(",", " ").split() if aliases else [])} if path else set()
    if path and (argv[1:len(path)] != path[:-1] or len(argv) <= len(path) or argv[len(path)] not in names):
        return f"the help printed is that of `pulumi {' '.join(path)}`"
    following = [a for a in argv[1 + len(path):1 + len(path) + 1] if not a.startswith("-")]
    if following and "Available Commands:" in done.stdout:
        return f"`pulumi {' '.join(path)}` has no command '{following[0]}'"
    return None


def documented_commands() -> list[tuple[str, list[str]]]:
    return [(f"{page.relative_to(REPO)}:{number}", argv)
            for page in COMMAND_PAGES for number, argv in shell_commands(page.read_text())]


# --- the tests ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("page", LINK_PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_resolves(page: Path) -> None:
    assert broken_links(page) == []


def test_the_pages_show_commands_of_our_own() -> None:
    """The check below is not vacuous: the docs show ./dev and python -m commands."""
    programs = {argv[0] for _, argv in documented_commands()}
    assert {"./dev", ".venv/bin/python"} <= programs
    assert sum(argv[0] == "./dev" for _, argv in documented_commands()) >= 20


@pytest.mark.parametrize("where,argv", documented_commands(), ids=lambda v: v if isinstance(v, str) else "")
def test_every_documented_command_parses(where: str, argv: list[str]) -> None:
    assert command_problem(argv) is None, f"{where}: {shlex.join(argv)}: {command_problem(argv)}"


def test_every_documented_pulumi_command_parses(pulumi_engine: Path) -> None:
    """The engine's CLI parses each (`--help`: no program runs, no backend is touched)."""
    shown = {shlex.join(argv): (where, argv) for where, argv in documented_commands() if argv[0] == "pulumi"}
    assert len(shown) >= 10
    problems = [f"{where}: {line}: {problem}" for line, (where, argv) in shown.items()
                if (problem := pulumi_problem(pulumi_engine, argv))]
    assert problems == []
    assert pulumi_problem(pulumi_engine, ["pulumi", "stack", "selectt"]) is not None  # can fail
    assert pulumi_problem(pulumi_engine, ["pulumi", "preview", "--no-such-flag"]) is not None


def test_the_readme_fits_on_a_page() -> None:
    assert len((REPO / "README.md").read_bytes()) < 15_000


@pytest.mark.parametrize("page", [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))],
                         ids=lambda p: str(p.relative_to(REPO)))
def test_user_facing_pages_name_no_issue_and_no_measurement_time(page: Path) -> None:
    """Issue numbers mean nothing to a user; a measurement's time belongs with the benchmarks' results."""
    text = page.read_text()
    assert re.findall(r"(?i)\bissues? \d+", text) == []
    assert re.findall(r"\b\d{1,2}:\d{2}(?:-\d{1,2}:\d{2})? UTC\b|\b20\d\d-\d\d-\d\d \d\d:\d\d", text) == []


def test_every_key_of_a_job_and_a_sweep_is_documented() -> None:
    """docs/jobs.md's key table against the config model: a key added to JobEntry needs its row."""
    from pydantic.alias_generators import to_camel

    from modelarts_provider.stack.config import JobEntry, SweepConfig

    section = (REPO / "docs" / "jobs.md").read_text().split("## Every key of a job", 1)[1].split("\n## ", 1)[0]
    shown = set(re.findall(r"`([a-zA-Z]+)`", section))
    missing = [to_camel(f) for f in [*JobEntry.model_fields, *SweepConfig.model_fields] if to_camel(f) not in shown]
    assert missing == []


def test_every_docs_page_is_linked_from_the_readme() -> None:
    readme = (REPO / "README.md").read_text()
    unlinked = [p.name for p in sorted((REPO / "docs").glob("*.md")) if f"](docs/{p.name})" not in readme]
    assert unlinked == []


# --- the checker itself: it can fail --------------------------------------------------------------------------


def test_a_broken_link_and_a_missing_heading_are_reported() -> None:
    page = REPO / "docs" / "jobs.md"
    text = ("See [secrets](secrets.md), [gone](no-such-page.md), [a heading](secrets.md#no-such-heading),\n"
            "[here](#declaring-jobs), `[not a link](nowhere.md)` and [the web](https://example.com/x.md).\n"
            "```\n[in code](nowhere.md)\n```\n")
    problems = broken_links(page, text)
    assert len(problems) == 2, problems
    assert "no such file no-such-page.md" in problems[0]
    assert "no heading #no-such-heading in docs/secrets.md" in problems[1]


def test_github_slugs() -> None:
    assert slug("What `pulumi` does with a job") == "what-pulumi-does-with-a-job"
    assert slug("Shared constants (local stack and emulator defaults)") == \
        "shared-constants-local-stack-and-emulator-defaults"
    assert slug("Sweeps: which point won (objectives, results, status)") == \
        "sweeps-which-point-won-objectives-results-status"


def test_bogus_commands_are_reported() -> None:
    assert command_problem(["./dev", "frobnicate"]) is not None
    assert "unknown command" in (command_problem(["./dev", "frobnicate", "--x"]) or "")
    assert command_problem(["./dev", "emulator", "restart"]) is not None
    assert "--chart" in (command_problem(["./dev", "logs", "resnet", "--chart", "x.png"]) or "")  # a results flag
    assert command_problem(["./dev", "results"]) is not None  # SWEEP is required
    assert command_problem([".venv/bin/python", "-m", "modelarts_provider", "status", "--stack"]) is not None
    assert command_problem(["python", "-m", "obs_emulator", "--no-such-flag"]) is not None
    # and the good forms pass
    assert command_problem(["./dev", "results", "lr-sweep", "--chart", "x.png"]) is None
    assert command_problem(["python", "-m", "modelarts_emulator", "--execute", "--port", "8780"]) is None


def test_commands_are_read_as_the_shell_would() -> None:
    text = ("```bash\n"
            "./dev up      # a comment with ./dev bogus in it\n"
            "# ./dev bogus: a whole-line comment\n"
            "A=1 B='x y' ./dev logs resnet \\\n  --follow && ./dev status | head\n"
            "```\n```text\n./dev bogus output\n```\n")
    assert [argv for _, argv in shell_commands(text)] == [
        ["./dev", "up"], ["./dev", "logs", "resnet", "--follow"], ["./dev", "status"], ["head"]]
