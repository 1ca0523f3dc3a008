"""Issues 41 and 44, in-process: a slip in the config is named once, clearly, with what was meant; a namespace one
slip from ours is refused (the program would see nothing there), a regex refusal names the real problem with the
pattern as written, a plaintext credential in `environments` is a warning naming `pulumi config set --secret`."""

from __future__ import annotations

import pytest

from modelarts_provider.core.linear_regex import compile_objective
from modelarts_provider.core.messages import edit_distance
from modelarts_provider.stack.config import StackConfigError, parse
from modelarts_provider.stack.namespaces import misspelled_namespaces
from modelarts_provider.training_job import plaintext_credentials
from modelarts_provider.training_job.plaintext_credentials import looks_like_credential, warn_once, warnings

OURS = ("modelarts-jobs", "modelarts")


@pytest.mark.parametrize("a, b, distance", [("modelarts-job", "modelarts-jobs", 1), ("kitten", "sitting", 3),
                                            ("", "abc", 3), ("same", "same", 0)])
def test_edit_distance(a: str, b: str, distance: int) -> None:
    assert edit_distance(a, b) == distance == edit_distance(b, a)


def test_a_namespace_one_slip_from_ours_is_refused_with_the_key_it_meant() -> None:
    keys = ["modelarts-job:sweeps", "modelarts-jobs:jobs", "Modelarts_Jobs:pools", "modelart:region",
            "modelarts-jbos:obs", "aws:region", "random:x", "pulumi:tags", "modelarts:region", "myproject:jobs"]
    assert misspelled_namespaces(keys, OURS) == [
        "invalid stack config: Modelarts_Jobs:pools: unknown namespace Modelarts_Jobs (did you mean modelarts-jobs:pools?)",
        "invalid stack config: modelart:region: unknown namespace modelart (did you mean modelarts:region?)",
        "invalid stack config: modelarts-jbos:obs: unknown namespace modelarts-jbos (did you mean modelarts-jobs:obs?)",
        "invalid stack config: modelarts-job:sweeps: unknown namespace modelarts-job (did you mean modelarts-jobs:sweeps?)",
    ]
    assert misspelled_namespaces(["aws:region", "modelarts-jobs:jobs", "kubernetes:context"], OURS) == []


@pytest.mark.parametrize("pattern, problem", [
    (r"acc=(\d+", r"'acc=(\d+' is not a regular expression RE2 accepts: a '(' is never closed: add its ')' or write \( for a "
                  "literal parenthesis"),
    (r"acc=\d+)", r"'acc=\d+)' is not a regular expression RE2 accepts: a ')' has no '(' before it: remove it or write \) for a "
                  "literal parenthesis"),
    (r"acc=([0-9.+)", r"'acc=([0-9.+)' is not a regular expression RE2 accepts: a '[' is never closed: add its ']' or write \[ for a "
                     "literal bracket"),
    (r"(a)=\1(\d)", r"'(a)=\1(\d)' is not a regular expression RE2 accepts: \1 (a backreference) is not supported: RE2 matches in "
                    "linear time without them"),
    (r"acc=(\q)", r"'acc=(\q)' is not a regular expression RE2 accepts: \q is not an escape RE2 knows (e.g. \d, \w, \s, \.)"),
    (r"*acc=(\d)", r"'*acc=(\d)' is not a regular expression RE2 accepts: * repeats nothing: write \* for the character itself"),
    (r"acc=[9-0](\d)", r"'acc=[9-0](\d)' is not a regular expression RE2 accepts: the range 9-0 runs backwards"),
    (r"acc=\d+", r"'acc=\d+' needs exactly one group around the number, e.g. accuracy=([0-9.]+); it has 0"),
])
def test_a_regex_refusal_names_the_problem_with_the_pattern_as_written(pattern: str, problem: str) -> None:
    with pytest.raises(ValueError) as err:
        compile_objective(pattern)
    assert str(err.value) == problem
    assert "\\\\" not in str(err.value)  # never a repr's doubled backslashes


def _refusal(job: dict) -> list[str]:
    with pytest.raises(StackConfigError) as err:
        parse({"pools": {"gpu": {"flavor": "f"}}, "obs": {"m": {"bucket": "bkt"}}, "jobs": {"a": job}})
    return str(err.value).splitlines()


def test_a_mistyped_boot_file_gets_a_did_you_mean_alone() -> None:
    """`code: {bootfile: ...}` said `code.bootFile: is required` first: the reader looked for a missing key."""
    engine = {"name": "PyTorch", "version": "2.1"}
    assert _refusal({"pool": "gpu", "code": {"localDir": "x", "bootfile": "t.py"}, "engine": engine}) == [
        "invalid stack config: modelarts-jobs:jobs.a.code.bootfile: unknown key (did you mean bootFile?)"]
    assert _refusal({"pool": "gpu", "codeDir": "x/", "bootFiel": "t.py", "engine": engine}) == [
        "invalid stack config: modelarts-jobs:jobs.a.bootFiel: unknown key (did you mean bootFile?)"]
    # nothing close: the required key is still named
    assert _refusal({"pool": "gpu", "code": {"localDir": "x", "main": "t.py"}, "engine": engine}) == [
        "invalid stack config: modelarts-jobs:jobs.a.code.bootFile: is required",
        "invalid stack config: modelarts-jobs:jobs.a.code.main: unknown key (allowed: localDir, bootFile, excludes)"]


@pytest.mark.parametrize("name, value, credential", [
    ("HF_TOKEN", "hf_" + "a1B2" * 8, True), ("DB_PASSWORD", "correct-horse", True),
    ("ANYTHING", "ghp_" + "x" * 30, True), ("AWS_KEY_ID", "AKIA" + "ABCDEFGHIJKLMNOP", True),
    ("NCCL_DEBUG", "INFO", False), ("TOKENIZERS_PARALLELISM", "false", False), ("MAX_TOKENS", "4096", False),
    ("HF_TOKEN", "", False),
])
def test_what_looks_like_a_credential(name: str, value: str, credential: bool) -> None:
    assert looks_like_credential(name, value) is credential


def _job(env: dict, **extra: object) -> dict:
    return {"algorithm": {"environments": env}, **extra}


def test_a_plaintext_credential_is_a_warning_naming_the_key_and_config_set_secret() -> None:
    token = "hf_" + "Zq9" * 10
    env = {"HF_TOKEN": token, "NCCL_DEBUG": "INFO"}
    stack_door = warnings(_job(env, config_keys={"algorithm.environments": "modelarts-jobs:jobs.a.environments"}))
    assert stack_door == [
        "warning: modelarts-jobs:jobs.a.environments.HF_TOKEN looks like a credential but is not a secret: it is "
        "stored in plain text in the state; make it one: pulumi config set --secret --path "
        "'modelarts-jobs:jobs.a.environments.HF_TOKEN' <value>"]
    (plugin_door,) = warnings(_job(env))
    assert plugin_door.startswith("warning: algorithm.environments.HF_TOKEN looks like a credential but is not a "
                                  "secret") and "pulumi config set --secret" in plugin_door
    assert token not in stack_door[0] + plugin_door
    # a secret (by its path, or the whole map) is no warning
    assert warnings(_job(env, secret_paths=["algorithm.environments.HF_TOKEN"])) == []
    assert warnings(_job(env, secret_paths=["algorithm.environments"])) == []


def test_the_warning_is_said_once_per_place(monkeypatch: pytest.MonkeyPatch) -> None:
    """A sweep's 1,000 points share one `environments`: one line, not 1,000."""
    monkeypatch.setattr(plaintext_credentials, "_WARNED", set())
    said: list[str] = []
    job = _job({"API_KEY": "sk-" + "k" * 30}, config_keys={"algorithm.environments": "modelarts-jobs:sweeps.s.environments"})
    for _ in range(3):
        warn_once(job, said.append)
    assert len(said) == 1 and said[0].startswith("warning: modelarts-jobs:sweeps.s.environments.API_KEY ")
