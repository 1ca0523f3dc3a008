"""A listing that fails (its retries spent) is the answer for every create that waited for it: N creates
of one `up` during an outage fail together, instead of each spending the retry budget in turn."""

from __future__ import annotations

import threading
import time

import pytest

from modelarts_provider.client.errors import ModelArtsError
from modelarts_provider.training_job import name_index
from modelarts_provider.training_job.name_index import NameIndex


class Down:
    """A list API that answers 503 (not retryable here, so one call per listing attempt)."""

    def __init__(self) -> None:
        self.calls = 0
        self.up = False

    def list_jobs(self, name_like=None, phases=None, limit=50, *, workspace_id=None):  # noqa: ANN001
        self.calls += 1
        time.sleep(0.2)  # the waiting creates queue on the index's lock meanwhile
        if not self.up:
            raise ModelArtsError("Service temporarily unavailable", status=503, error_code="APIGW.0201")
        return []


def test_creates_waiting_for_a_failed_listing_share_its_failure_and_a_later_one_tries_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(name_index, "LIST_ATTEMPTS", 1)
    client = Down()
    index = NameIndex(client)
    errors: list[str] = []

    def create() -> None:
        try:
            index.lookup("job-a")
        except ModelArtsError as err:
            errors.append(err.error_code or "")

    threads = [threading.Thread(target=create) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert errors == ["APIGW.0201"] * 4
    assert client.calls == 1, "each waiting create listed again"

    client.up = True  # a create that comes after the failure lists again
    assert index.lookup("job-a") == []
    assert client.calls == 2
