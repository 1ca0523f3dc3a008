"""Each field of a job is declared once (core/fields.py): these tests hold the declarations complete and the
rules derived from them equal to the ones written by hand before (the diff's sets, the payload, the read-back)."""

from __future__ import annotations

import pytest

from modelarts_provider.core.fields import Change, Declared, declarations, fields_changing
from modelarts_provider.training_job import args as ARGS
from modelarts_provider.training_job.args import TrainingJobArgs


def test_every_job_field_has_one_complete_declaration() -> None:
    for f in declarations(TrainingJobArgs):  # raises for a field without exactly one Declared
        assert isinstance(f.declared, Declared)
        assert f.info.description and len(f.info.description) > 10, f"{f.name}: no description"
        assert isinstance(f.declared.change, Change)
        if f.declared.api is not None:
            assert f.declared.api.split(".")[0] in ("metadata", "spec", "algorithm", "kind"), f.name
            assert f.declared.change in (Change.REPLACE, Change.IN_PLACE), f"{f.name}: sent, yet {f.declared.change}"


# The diff's rules as they were written by hand before the declarations (training_job/args.py at 9615b31).
BEFORE_PROVIDER_ONLY = {"wait_for", "wait_timeout_seconds", "poll_interval_seconds", "delete_timeout_seconds",
                        "delete_before_replace", "replace_failed", "adopt_job_id", "derived_name", "owner",
                        "keep_finished_runs", "output_per_run", "keep_runs", "secret_paths"}
BEFORE_UPDATABLE = {"description", "tags"}
BEFORE_MESSAGE_ONLY = {"config_keys"}


def test_derived_diff_rules_equal_the_hand_written_ones() -> None:
    assert ARGS.PROVIDER_ONLY_FIELDS == BEFORE_PROVIDER_ONLY
    assert ARGS.UPDATABLE_FIELDS == BEFORE_UPDATABLE
    assert ARGS.MESSAGE_ONLY_FIELDS == BEFORE_MESSAGE_ONLY
    replaced = fields_changing(TrainingJobArgs, Change.REPLACE)
    assert replaced == set(TrainingJobArgs.model_fields) - BEFORE_PROVIDER_ONLY - BEFORE_UPDATABLE - BEFORE_MESSAGE_ONLY


@pytest.mark.parametrize("model", [m for m in vars(ARGS).values()
                                   if isinstance(m, type) and issubclass(m, ARGS._ArgModel)
                                   and m not in (ARGS._ArgModel, TrainingJobArgs)])
def test_every_nested_model_says_where_it_sits_in_the_request(model: type) -> None:
    # the schema describes its fields without a description of their own by this path (plugin/schema.py)
    assert model.API_PATH and model.API_PATH.split(".")[0] in ("algorithm", "spec"), model.__name__
