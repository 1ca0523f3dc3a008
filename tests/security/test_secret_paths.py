"""stack/secrets.py without the engine: which config paths are secret, and what values they hold."""

from __future__ import annotations

from modelarts_provider.stack.secrets import secret_paths

RAW = {"jobs": {"a": {"environments": {"PIN": "7q", "PLAIN": "x"}, "parameters": {"lr": 0.1}}},
       "pools": {"gpu": {"flavor": "f"}}}


def _full(section: str) -> str:
    return f"modelarts-jobs:{section}"


def test_a_path_set_with_path_is_that_leaf_alone_whatever_its_length() -> None:
    written = {"modelarts-jobs:jobs": {"a": {"environments": {"PIN": {"secure": "v1:..."}, "PLAIN": "x"}}}}
    got = secret_paths(RAW, _full, lambda k: k == "modelarts-jobs:jobs", written)
    assert got.paths == (("jobs", "a", "environments", "PIN"),) and got.values == {"7q"}


def test_a_whole_key_set_as_one_secret_is_all_of_it() -> None:
    written = {"modelarts-jobs:jobs": {"secure": "v1:..."}}
    got = secret_paths(RAW, _full, lambda k: k == "modelarts-jobs:jobs", written)
    assert got.paths == (("jobs",),) and got.values == {"7q", "x", "0.1"}


def test_a_stack_file_that_cannot_be_read_counts_the_whole_key() -> None:
    got = secret_paths(RAW, _full, lambda k: k == "modelarts-jobs:pools", None)
    assert got.paths == (("pools",),) and got.values == {"f"}


def test_the_stack_file_is_read_only_where_the_engine_cannot_tell() -> None:
    """No secret key, or a secret scalar: the engine's secret keys tell all, the file is not read. A secret map:
    the engine does not tell a Python program its secret parts, the file is read, once for every section."""
    reads: list[int] = []

    def stack_config() -> dict[str, object]:
        reads.append(1)
        return {"modelarts-jobs:jobs": {"a": {"environments": {"PIN": {"secure": "v1:..."}}}}}

    assert secret_paths(RAW, _full, lambda k: False, stack_config).paths == () and reads == []
    scalar = secret_paths({**RAW, "keepRuns": 3}, _full, lambda k: k == "modelarts-jobs:keepRuns", stack_config)
    assert scalar.paths == (("keepRuns",),) and scalar.values == {"3"} and reads == []
    both = secret_paths(RAW, _full, lambda k: True, stack_config)
    assert (("jobs", "a", "environments", "PIN"),) == both.paths[:1] and reads == [1]
