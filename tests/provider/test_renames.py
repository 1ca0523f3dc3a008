"""core/renames.py: `modelarts:renamedFrom` believed only for a name that is no stack of the backend in use, and a
proof made for a believed former name verifies (core/ownership.proves), one made for any other stack never."""

from __future__ import annotations

import pytest

from modelarts_provider.core import ownership
from modelarts_provider.core.identity import mark_key
from modelarts_provider.client.owner_token import MARK_TAG, TOKEN_TAG
from modelarts_provider.core.ownership import OwnerMark, proves
from modelarts_provider.core.renames import RenameRefused, Renames, parse

SEED = "a" * 64


def _owner() -> OwnerMark:
    return OwnerMark(stack="organization/proj/new", resource="a", token="0123456789abcdef", key=mark_key(SEED))


def test_parse_keeps_the_stack_name_of_each_item() -> None:
    assert parse("old, organization/proj/older,old") == ("old", "older")
    assert parse(None) == () and parse("") == ()


@pytest.mark.parametrize("bad", ["a b", "x/y/z/w", 3])
def test_a_bad_name_is_refused_in_one_line_naming_the_setting(bad: object) -> None:
    with pytest.raises(RenameRefused, match=r"^modelarts:renamedFrom") as err:
        parse(bad)
    assert "\n" not in str(err.value)


def test_a_former_name_that_is_still_a_stack_is_refused_and_none_believed() -> None:
    renames = Renames(listed=lambda: frozenset({"old", "new"}))
    with pytest.raises(RenameRefused, match="names old, a stack of this project"):
        renames.configure("old")
    assert renames.stacks("proj/new") == ()


def test_a_believed_name_is_a_stack_of_the_acting_project() -> None:
    renames = Renames(listed=lambda: frozenset({"new"}))
    renames.configure("old,older")
    assert renames.stacks("proj/new") == ("proj/old", "proj/older")
    assert renames.stacks(None) == ()


@pytest.mark.parametrize("believed, proven", [("old", True), ("", False), ("other", False)])
def test_a_proof_for_the_former_name_verifies_only_when_believed(monkeypatch: pytest.MonkeyPatch, believed: str,
                                                               proven: bool) -> None:
    renames = Renames(listed=lambda: frozenset({"new"}))
    renames.configure(believed)
    monkeypatch.setattr(ownership, "RENAMES", renames)
    owner = _owner()
    made_before = {MARK_TAG: owner.proof("job", "job-a", "proj/old"), TOKEN_TAG: owner.token}
    assert proves(owner, "job", "job-a", "proj/new", None, made_before) is proven
    # Never a proof made for another object, whatever the setting
    assert not proves(owner, "job", "job-b", "proj/new", None, made_before)


def test_a_pool_made_before_the_proof_is_judged_by_its_token_and_stack_a_job_never() -> None:
    from modelarts_provider.core.ownership import STACK_ANNOTATION, TOKEN_ANNOTATION, stack_digest

    owner = _owner()
    labels = {TOKEN_ANNOTATION: owner.token, STACK_ANNOTATION: stack_digest("proj/new")}
    assert proves(owner, "pool", "pool-a", "proj/new", None, None, labels)  # labels cannot be upgraded
    assert not proves(owner, "pool", "pool-a", "proj/copy", None, None, labels)  # another stack's name
    assert not proves(owner, "job", "job-a", "proj/new", None, {TOKEN_TAG: owner.token})  # job tags get the proof
    forged = {**labels, "modelarts-pulumi/mark": "0" * 32}
    assert not proves(owner, "pool", "pool-a", "proj/new", None, None, forged)  # a proof, wrong: never
