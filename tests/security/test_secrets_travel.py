"""Secrets travel with the data (issue 45): what a provider call masks comes from that call's own inputs, handed
to the masking step; nothing is learnt for the process. Two resources served by one process never mask each
other's values, and a value equal to nothing secret is never masked."""

from __future__ import annotations

import string
from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from modelarts_provider.awaiting.conditions import Outcome, Verdict
from modelarts_provider.awaiting.report import failure_report
from modelarts_provider.awaiting.watcher import Result, Watched
from modelarts_provider.client.models import TaskLogPreview, TrainingJob
from modelarts_provider.core import masking
from modelarts_provider.core.masking import MASK, Secrets, mask
from modelarts_provider.core.provider_base import ModelArtsProvider
from modelarts_provider.core.output_lines import say, set_output
from modelarts_provider.core.provider_error import ProviderError
from modelarts_provider.training_job.provider import TrainingJobProvider

VALUE = "tag-Zq81xWv3kP"  # not a secret-looking shape: only a job's declaration makes it secret


def _job(key: str, secret: bool) -> dict[str, Any]:
    props: dict[str, Any] = {"name": f"{key}-job", "algorithm": {"environments": {"RUN_TAG": VALUE}}}
    if secret:
        props["secret_paths"] = ["algorithm.environments.RUN_TAG"]
    return props


class Echo(ModelArtsProvider):
    """A provider whose calls print their input and fail with it: the base class binds each call's secrets."""

    def secrets_of(self, *props: dict[str, Any]) -> Secrets:
        return TrainingJobProvider().secrets_of(*props)

    def create(self, props: dict[str, Any]) -> Any:
        say(f"{props['name']}: RUN_TAG={props['algorithm']['environments']['RUN_TAG']}")
        raise ProviderError(f"{props['name']} failed with RUN_TAG {props['algorithm']['environments']['RUN_TAG']}")


def test_two_resources_in_one_process_never_mask_each_others_values() -> None:
    lines: list[str] = []
    errors: list[str] = []
    set_output(lambda line, _severity: lines.append(line))
    try:
        for key, secret in (("a", True), ("b", False), ("a", True)):
            try:
                Echo().create(_job(key, secret))
            except ProviderError as err:
                errors.append(str(err))
    finally:
        set_output(None)
    # A's calls mask A's secret; B's call, after A's in the same process, prints its equal plain value as it is
    assert lines == [f"a-job: RUN_TAG={MASK}", f"b-job: RUN_TAG={VALUE}", f"a-job: RUN_TAG={MASK}"]
    assert errors == [f"a-job failed with RUN_TAG {MASK}", f"b-job failed with RUN_TAG {VALUE}",
                      f"a-job failed with RUN_TAG {MASK}"]
    assert mask(f"RUN_TAG={VALUE}") == f"RUN_TAG={VALUE}"  # nothing kept for the process after the calls


def test_a_training_jobs_check_teaches_the_process_nothing() -> None:
    TrainingJobProvider().check({}, {**_job("a", True), "flavor_id": "x"})  # today's registry learnt it here
    assert mask(f"b-job: RUN_TAG={VALUE}") == f"b-job: RUN_TAG={VALUE}"
    assert masking.in_call() == masking.NONE


class _Client:
    """Two failed jobs whose logs print the same value: secret in A's declaration, plain in B's."""

    def get_job(self, job_id: str) -> TrainingJob:
        return _failed(job_id)

    def get_task_log_preview(self, job_id: str, task: str) -> TaskLogPreview:
        return TaskLogPreview.model_validate({"content": f"env RUN_TAG={VALUE}\nboom {job_id}\n"})


def _failed(job_id: str) -> TrainingJob:
    return TrainingJob.model_validate({
        "metadata": {"id": job_id, "name": f"{job_id}-job"},
        "status": {"phase": "Failed", "tasks": ["worker-0"],
                   "task_statuses": [{"task": "worker-0", "exit_code": 3, "message": f"RUN_TAG {VALUE} rejected"}]}})


def test_a_wait_masks_each_jobs_part_of_its_report_with_that_jobs_secrets() -> None:
    results = [Result(Watched(k, k, f"{k}-job", "completed", 600, 5), Outcome(Verdict.FAILED, "failed"), _failed(k))
               for k in ("a", "b")]
    secrets = {"a": TrainingJobProvider().secrets_of(_job("a", True)), "b": masking.NONE}
    report = failure_report(_Client(), results, secrets=secrets)
    assert report is not None
    tails = report.split("\na (a-job): ")[1].split("\nb (b-job): ")
    assert f"RUN_TAG={MASK}" in tails[0] and VALUE not in tails[0], report
    assert f"env RUN_TAG={VALUE}" in tails[1], report
    # the cause both share holds A's secret: masked with the secrets of all its jobs
    assert f"- 2 jobs: Failed; exit code 3: RUN_TAG {MASK} rejected" in report, report


_plain = st.text(alphabet=string.ascii_letters + string.digits + "-_./", min_size=1, max_size=30)


@settings(max_examples=300, deadline=None)
@given(_plain, st.lists(_plain, max_size=4), st.booleans())
def test_property_a_value_equal_to_nothing_secret_is_never_masked(value: str, secrets: list[str],
                                                                  explicit: bool) -> None:
    # a line that holds none of the secrets, with no secret-looking key naming its value
    line = f"job b-job: value {value} seen"
    assume(all(s not in line for s in secrets))
    assert mask(line, Secrets.of(secrets, explicit=explicit)) == line
