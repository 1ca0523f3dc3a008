"""Owner tokens and derived names from the stack's seed (identity.py, training_job/naming.py), without the engine:
the rules both front doors share in check."""

from __future__ import annotations

from typing import Any

from modelarts_provider.core.identity import mark_key, is_seed, new_seed, suffix_for, token_for
from modelarts_provider.training_job.check import check_inputs
from modelarts_provider.training_job.naming import SEED_INPUT, with_identity
from modelarts_provider.training_job.normalize import spec_hash
from modelarts_provider.training_job.provider import TrainingJobProvider
from modelarts_provider.core.unknowns import UNKNOWN

from .common import job_inputs

SEED = "Q" * 48
STACK = "organization/proj/dev"


def _declared(**over: Any) -> dict[str, Any]:
    """What the Python TrainingJob (or the plugin's prepare) hands check for an unnamed job."""
    news = job_inputs(name=None, derived_name=True, owner={"stack": STACK, "resource": "train"}, **over)
    news[SEED_INPUT] = SEED
    return {k: v for k, v in news.items() if v is not None}


def _check(olds: dict[str, Any], news: dict[str, Any]) -> dict[str, Any]:
    """The inputs check records (canonical), as the next check gets them back as olds."""
    inputs, failures = check_inputs(with_identity(news, olds), olds or None)
    assert not failures, failures
    return inputs


def test_seeds_and_derivations() -> None:
    assert is_seed(new_seed()) and new_seed() != new_seed() and not is_seed("short") and not is_seed(None)
    assert token_for(SEED, "a") == token_for(SEED, "a") != token_for(SEED, "b") != token_for("R" * 48, "b")
    assert len(token_for(SEED, "a")) == 16 and suffix_for(SEED, "a", "spec1") != suffix_for(SEED, "a", "spec2")


def test_token_and_name_recorded_before_the_post_and_the_same_after_a_killed_up() -> None:
    first = _check({}, _declared())
    assert first["owner"] == {"stack": STACK, "resource": "train", "token": token_for(SEED, "train"),
                              "key": mark_key(SEED)}  # the stack's mark key (core/identity.py), a secret
    declared = {k: v for k, v in _declared().items() if k != SEED_INPUT}
    declared["owner"] = first["owner"]
    assert first["name"] == f"train-{suffix_for(SEED, 'train', spec_hash(declared))}" and SEED_INPUT not in first
    # A killed `up` records nothing: the next one derives the same token and name (and takes its job over).
    assert _check({}, _declared()) == first


def test_an_edit_keeps_the_name_a_replacement_renews_it_and_a_killed_replacement_repeats_it() -> None:
    first = _check({}, _declared())
    edited = _check(first, _declared(description="new"))
    assert edited["name"] == first["name"]
    replaced = _check(first, _declared(flavor_id="modelarts.vm.cpu.8u"))
    assert replaced["name"] != first["name"] and replaced["name"].startswith("train-")
    assert replaced["owner"] == first["owner"]  # one token per resource: every job it ever made is found by it
    # Killed and tried again; and the engine's second check of a replacement, without old inputs: the same.
    assert _check(first, _declared(flavor_id="modelarts.vm.cpu.8u")) == replaced
    assert _check({}, _declared(flavor_id="modelarts.vm.cpu.8u")) == replaced


def test_a_recorded_token_and_name_are_kept() -> None:
    """A stack made when each job had a RandomId token and a RandomString suffix keeps both."""
    old = _check({}, {**job_inputs(name="train-abcdef", derived_name=True,
                                   owner={"stack": STACK, "resource": "train", "token": "0123456789abcdef"})})
    again = _check(old, _declared())
    assert again["owner"]["token"] == "0123456789abcdef" and again["name"] == "train-abcdef"
    replaced = _check(old, _declared(node_count=2))
    assert replaced["owner"]["token"] == "0123456789abcdef" and replaced["name"] != "train-abcdef"


def test_unknown_seed_at_preview_and_given_names_untouched() -> None:
    preview = with_identity({**_declared(), SEED_INPUT: UNKNOWN}, {})
    assert preview["owner"]["token"] == UNKNOWN and preview["name"] == UNKNOWN
    inputs, failures = check_inputs(preview)
    assert not failures  # the rest of the declaration is still checked
    named = with_identity({**_declared(), "name": "my-job", "derived_name": False}, {})
    assert named["name"] == "my-job" and named["owner"]["token"] == token_for(SEED, "train")


def test_the_seed_never_reaches_the_state() -> None:
    result = TrainingJobProvider().check({}, _declared())
    assert not result.failures and SEED_INPUT not in result.inputs
    assert SEED not in repr(result.inputs)


def test_a_replacement_keeps_the_recorded_token_after_the_seed_was_replaced() -> None:
    # The engine checks a replacement twice: with the old inputs (the recorded token), then without them. With
    # a new seed (the seed resource replaced), the second check keeps the recorded token (issue 43).
    from modelarts_provider.core.call_urn import CURRENT_URN

    def provider_check(olds: dict[str, Any], news: dict[str, Any]) -> dict[str, Any]:
        return TrainingJobProvider().check(olds, news).inputs  # (no settings here: only the identity matters)

    old = _check({}, _declared())
    other_seed = "R" * 48
    reset = CURRENT_URN.set("urn:pulumi:dev::proj::pulumi-python:dynamic/modelarts:TrainingJob::train")
    try:
        first = provider_check(old, {**_declared(flavor_id="modelarts.vm.cpu.8u"), SEED_INPUT: other_seed})
        again = provider_check({}, {**_declared(flavor_id="modelarts.vm.cpu.8u"), SEED_INPUT: other_seed})
    finally:
        CURRENT_URN.reset(reset)
    assert first["owner"]["token"] == again["owner"]["token"] == old["owner"]["token"] == token_for(SEED, "train")
    # Without the engine's URN (no first check of this resource seen), the seed decides.
    fresh = provider_check({}, {**_declared(), SEED_INPUT: other_seed})
    assert fresh["owner"]["token"] == token_for(other_seed, "train")
