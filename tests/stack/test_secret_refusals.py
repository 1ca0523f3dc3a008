"""Secret stack config that the state would keep in plaintext is refused before anything is declared
(stack/secrets.name_refusals): names, and the provider's own options."""

from __future__ import annotations

import pytest

from modelarts_provider.stack.secrets import SecretPaths, name_refusals

RAW = {"jobs": {"a": {"pool": "cpu", "waitFor": "completed", "keepRuns": 3, "environments": {"TOKEN": "x"}}},
       "sweeps": {"s": {"pool": "cpu", "waitTimeoutSeconds": 60, "grid": {"lr": [0.1]}}}}


def refusals(*paths: tuple[str, ...]) -> list[str]:
    return name_refusals(RAW, SecretPaths(paths=paths), lambda s: f"modelarts-jobs:{s}")


@pytest.mark.parametrize("path, key", [
    (("jobs", "a", "waitFor"), "modelarts-jobs:jobs.a.waitFor"),
    (("jobs", "a", "keepRuns"), "modelarts-jobs:jobs.a.keepRuns"),  # a short number: no by-value catch
    (("sweeps", "s", "waitTimeoutSeconds"), "modelarts-jobs:sweeps.s.waitTimeoutSeconds"),
])
def test_a_secret_provider_option_is_refused_in_one_line_naming_it(path: tuple[str, ...], key: str) -> None:
    assert refusals(path) == [f"invalid stack config: {key} is secret, but it is a provider option (how to wait, "
                              "replace and keep runs), never sent, which the state records in plaintext; set it "
                              "without --secret"]


def test_secret_data_and_a_wholly_secret_entry_are_marked_not_refused() -> None:
    # what the job sends is marked secret where it lands (job_selectors); a whole entry set as one secret is its
    # data, and its options stay as they are
    assert refusals(("jobs", "a", "environments", "TOKEN")) == []
    assert refusals(("jobs", "a")) == [] and refusals(("jobs",)) == []
