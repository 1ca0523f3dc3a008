"""The bad-input table itself (issue 13's 'done when'): every field of the stack config and of the
TrainingJob args is the subject of a case, and no expected message speaks pydantic (a pattern, a
union's alternatives). The preview tests assert each message exactly, so these hold for what users read."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.bad_input.args_cases import ARGS_CASES
from tests.bad_input.fields import ARGS_FIELDS, STACK_FIELDS, FieldId, args_field_at, stack_field_at
from tests.bad_input.mutations import DELETE, Case
from tests.bad_input.stack_cases import STACK_CASES

ALL_CASES = STACK_CASES + ARGS_CASES

# What a message must never carry: pieces of regular expressions, pydantic's own wording, the names
# pydantic gives union branches and validators.
PYDANTIC_RE = re.compile(
    r"\^|\$|\[A-Z|\[a-z|\[\^|\\[sSdw]|\{\d+,\d*\}|\bpattern\b|Input should|valid (string|integer|number)|"
    r"union\[|function-|tagged-union|literal\[|Value error|type=", re.I)


def test_ids_are_distinct_and_the_table_grew() -> None:
    ids = [c.id for c in ALL_CASES]
    assert len(ids) == len(set(ids))
    assert len(ALL_CASES) >= 200  # 97 before issue 13's coverage rule


@pytest.mark.parametrize("cases,resolve", [(STACK_CASES, stack_field_at), (ARGS_CASES, args_field_at)],
                         ids=["stack", "args"])
def test_every_case_names_fields_that_exist(cases: list[Case], resolve: Any) -> None:
    unresolved = [(c.id, p) for c in cases for p in c.fields if resolve(p) is None]
    assert not unresolved, f"paths that name no field of the models: {unresolved}"


@pytest.mark.parametrize("cases,resolve,fields", [(STACK_CASES, stack_field_at, STACK_FIELDS),
                                                  (ARGS_CASES, args_field_at, ARGS_FIELDS)], ids=["stack", "args"])
def test_every_field_has_a_case(cases: list[Case], resolve: Any, fields: set[FieldId]) -> None:
    covered = {resolve(p) for c in cases for p in c.fields}
    assert fields - covered == set(), "fields without a bad-input case"


def test_the_field_models_are_the_ones_users_write() -> None:
    """A guard on fields.py's walk: the sections, provider settings and deepest arg models are there."""
    assert {("StackConfig", s) for s in ("obs", "pools", "jobs", "sweeps")} <= STACK_FIELDS
    assert {("ObsConfig", "force_destroy"), ("CodeSource", "excludes"), ("ProviderSettings", "obs_endpoint"),
            ("SweepConfig", "max_jobs"), ("NfsConfig", "read_only")} <= STACK_FIELDS
    assert {("AlgoConfigParamArg", "type"), ("RemoteConstraintArg", "attributes"),
            ("ParameterConstraintArg", "valid_range"), ("TrainingJobArgs", "derived_name")} <= ARGS_FIELDS


def _words(field: FieldId, path: tuple[Any, ...]) -> set[str]:
    """How a message may name the field: its config key, or its Python name (args)."""
    last = str(path[-1]).split(":")[-1]
    return {last, field[1]}


@pytest.mark.parametrize("case", ALL_CASES, ids=[c.id for c in ALL_CASES])
def test_message_names_the_field_and_speaks_no_pydantic(case: Case) -> None:
    message = case.message
    assert isinstance(message, str) and message, "every case states its exact message"
    assert "\n" not in message, "one line"
    assert not PYDANTIC_RE.search(message), f"quotes a pattern or pydantic's wording: {message}"
    resolve = stack_field_at if case in STACK_CASES else args_field_at
    for path in case.fields:
        field = resolve(path)
        assert field is not None
        assert any(w in message for w in _words(field, path)), f"does not name {path[-1]!r}: {message}"


@pytest.mark.parametrize("case", ALL_CASES, ids=[c.id for c in ALL_CASES])
def test_message_says_each_field_once(case: Case) -> None:
    """A union's alternatives are one sentence, and a field is refused once."""
    parts = case.message.split("; ")
    located = [p.split(": ", 1)[0] for p in parts if ": " in p]
    assert len(located) == len(set(located)), f"a field refused twice: {case.message}"
    assert len(re.findall(r"must be a (string|whole number|number|boolean|list|map)\b", case.message)) <= 1, \
        f"alternatives listed one by one: {case.message}"


# Refusals of a key's presence, not of its value: the value is beside the point.
PRESENCE_RE = re.compile(r"unknown key|is not a known field|unknown provider setting|is not allowed|set exactly one")


def _given(case: Case) -> Any:
    """The scalar value a single-edit case refuses, or None."""
    if len(case.mutate.edits) != 1 or PRESENCE_RE.search(case.message):
        return None
    value = case.mutate.edits[0][1]
    if value is DELETE or isinstance(value, (bool, dict, list)):
        return None
    return value


@pytest.mark.parametrize("case", [c for c in ALL_CASES if _given(c) is not None],
                         ids=[c.id for c in ALL_CASES if _given(c) is not None])
def test_message_shows_the_value_given(case: Case) -> None:
    value = _given(case)
    shown = repr(int(value) if isinstance(value, float) and value.is_integer() else value)
    if len(shown) > 60:  # long values are cut (messages.shown) or counted
        assert shown[:50] in case.message or re.search(r"\(got \d+\)", case.message), case.message
    else:
        assert shown in case.message or str(value) in case.message, f"does not show {shown}: {case.message}"
