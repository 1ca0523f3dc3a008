"""The one masking step (modelarts_provider.core.masking): shapes, known values, and a property over generated lines."""

from __future__ import annotations

import string
from collections.abc import Iterator

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from modelarts_provider.core import masking
from modelarts_provider.core.masking import MASK, mask, mask_shapes

SECRET = "s3cr3t-V4lue_xyz"


@pytest.mark.parametrize("line, expected", [
    (f"ERROR: HF_TOKEN={SECRET}", f"ERROR: HF_TOKEN={MASK}"),
    (f"WARNING:root:API_KEY={SECRET}", f"WARNING:root:API_KEY={MASK}"),
    (f"{{'api_key': '{SECRET}', 'lr': 0.1}}", f"{{'api_key': '{MASK}', 'lr': 0.1}}"),
    (f'{{"token": "{SECRET}", "epochs": 3}}', f'{{"token": "{MASK}", "epochs": 3}}'),
    (f"python train.py --hf-token {SECRET} --lr 0.1", f"python train.py --hf-token {MASK} --lr 0.1"),
    (f"python train.py --hf-token={SECRET}", f"python train.py --hf-token={MASK}"),
    (f"db_password: {SECRET}", f"db_password: {MASK}"),
    (f"env DATABASE_URL=postgres://trainer:{SECRET}@db:5432/x", f"env DATABASE_URL=postgres://trainer:{MASK}@db:5432/x"),
    (f"Authorization: Bearer {SECRET}", f"Authorization: {MASK}"),
    (f"client_credential = {SECRET}", f"client_credential = {MASK}"),
    (f"X-Auth-Token:{SECRET}", f"X-Auth-Token:{MASK}"),
    ("KeyError: 'epochs'", "KeyError: 'epochs'"),
    ("epoch 1/4 loss=1.7626 accuracy=0.2656", "epoch 1/4 loss=1.7626 accuracy=0.2656"),
    ("see https://example.com:443/a", "see https://example.com:443/a"),
    ("MA_TASK_NAME=worker-0 VC_TASK_INDEX=0", "MA_TASK_NAME=worker-0 VC_TASK_INDEX=0"),
])
def test_the_usual_secret_shapes_are_masked_and_nothing_else(line: str, expected: str) -> None:
    assert mask_shapes(line) == expected
    assert SECRET not in mask(line)


def test_known_values_are_masked_anywhere_and_short_ones_where_assigned() -> None:
    assert mask(f"openai={SECRET} and ({SECRET})", [SECRET]) == f"openai={MASK} and ({MASK})"
    assert mask(f"note {SECRET}.", [SECRET]) == f"note {MASK}."
    # a 2-character PIN: masked where it is a value, never inside numbers of other lines
    assert mask("PIN=42 epoch 42/50 x420", ["42"]) == f"PIN={MASK} epoch 42/50 x420"
    assert mask("pin: 42", ["42"]) == f"pin: {MASK}"
    assert mask("42", ["42"]) == MASK


def test_secrets_mask_their_material_and_their_explicit_values() -> None:
    value = "secrets-value-0815"
    assert value in mask(f"x {value}")  # nothing learnt: outside a call, only shapes
    secrets = masking.Secrets.of([value, 12345, True, None])
    assert mask(f"x {value} {12345}", secrets) == f"x {MASK} 12345"  # a number is no secret material...
    assert "12345" in secrets.every  # ...but it is never recorded in plain text
    explicit = masking.Secrets.of([4321], explicit=True)  # ...unless it was set as a secret of its own
    assert mask("PIN=4321", explicit) == f"PIN={MASK}"
    assert mask("PIN=4321", secrets | explicit) == f"PIN={MASK}"


# --- a whole secret section: its secrets masked, its plain values and the jobs' names readable -----------

SECTION = {"jobs": {"failing": {"pool": "gpu", "nodes": 1, "parameters": {"lr": 0.1, "mode": "fail"},
                                "waitFor": "completed", "annotations": {"note": "none"},
                                "environments": {"HF_TOKEN": "hf_abcdefghijklmnop", "PIN": "42"},
                                "description": "uses the db-pass-8812 account"}}}


@pytest.fixture
def section_learnt() -> Iterator[None]:
    from modelarts_provider.training_job.provider import TrainingJobProvider

    # what a provider call binds for a job whose whole section is secret (secret_paths name every leaf)
    props = {"name": "failingsecret-8adyj3", "node_count": 1, "flavor_id": "modelarts.vm.gpu.tnt004",
             "pool_id": "gpu", "description": "uses the db-pass-8812 account",
             "annotations": {"note": "none"},
             "algorithm": {"parameters": [{"name": "lr", "value": "0.1"}, {"name": "mode", "value": "fail"}],
                           "environments": {"HF_TOKEN": "hf_abcdefghijklmnop", "PIN": "42"}},
             "secret_paths": ["node_count", "flavor_id", "pool_id", "description", "annotations.note",
                              "algorithm.parameters.0.value", "algorithm.parameters.1.value",
                              "algorithm.environments.HF_TOKEN", "algorithm.environments.PIN"]}
    with masking.binding(TrainingJobProvider().secrets_of(props)):
        yield


@pytest.mark.parametrize("line", [
    "job failingsecret-8adyj3 failed",                 # `fail` is never masked inside another word
    "waiting for 1 training job",                       # a count
    "python train.py --lr=0.1 --mode=fail",             # plain parameter values of the secret section
    "task worker-0 exited with code 1",
    "pool gpu: Running, phase Failed, annotations none",
    "flavor modelarts.vm.gpu.tnt004",
])
def test_plain_values_of_a_secret_section_stay_readable(section_learnt: None, line: str) -> None:
    assert mask(line) == line


@pytest.mark.parametrize("line, expected", [
    ("env HF=hf_abcdefghijklmnop", f"env HF={MASK}"),
    ("HF=xhf_abcdefghijklmnopx", f"HF=x{MASK}x"),       # a long secret: masked even inside other text
    ("PIN=42 at epoch 42/50", f"PIN={MASK} at epoch 42/50"),  # an environment value: a secret whatever its size
    ("uses the db-pass-8812 account", MASK),             # the description: secret material as a whole
])
def test_the_secrets_of_a_secret_section_are_masked(section_learnt: None, line: str, expected: str) -> None:
    assert mask(line) == expected


def test_the_job_named_in_a_failure_is_always_shown(section_learnt: None) -> None:
    with masking.binding(masking.Secrets.of(["8adyj3"], explicit=True)):  # even a secret inside the job's name
        assert mask("job failingsecret-8adyj3 failed: exit 1") == "job failingsecret-8adyj3 failed: exit 1"
        assert mask("token 8adyj3") == f"token {MASK}"


def test_a_secret_is_masked_as_a_whole_not_inside_other_words() -> None:
    assert mask("failingsecret-8adyj3 fail", ["fail"]) == f"failingsecret-8adyj3 {MASK}"
    assert mask("passwordless hunter2x!", ["hunter2x!"]) == f"passwordless {MASK}"
    assert mask("xhunter2xy", ["hunter2x"]) == "xhunter2xy"


@pytest.mark.parametrize("value, material", [
    ("1", False), ("0.001", False), ("1e-4", False), ("none", False), ("Failed", False), ("fail", False),
    ("gpu", False), ("true", False), ("hunter2", True), ("db-pass-8812", True), ("s3cr3t", True),
    ("password", True),
])
def test_secret_material(value: str, material: bool) -> None:
    assert masking.secret_material(value) is material


_names = st.sampled_from(["HF_TOKEN", "api_key", "DB_PASSWORD", "passwd", "my-secret", "AWS_SECRET_ACCESS_KEY",
                          "credential", "AUTH", "github_token", "SK", "PULUMI_CONFIG_PASSPHRASE"])
# a value does not start with "-": after a flag that would be the next flag (`--secret --path`)
_values = st.builds(lambda a, b: a + b, st.sampled_from(string.ascii_letters + string.digits),
                    st.text(alphabet=string.ascii_letters + string.digits + "-_./+", min_size=5, max_size=40))
_prefix = st.sampled_from(["", "ERROR: ", "WARNING:root:", "INFO 2026-11-24 12:00:00 ", "env ", "  ", "[worker-0] "])


@st.composite
def _secret_line(draw: st.DrawFn) -> tuple[str, str]:
    name, value, prefix = draw(_names), draw(_values), draw(_prefix)
    shape = draw(st.sampled_from(["{n}={v}", "{n}: {v}", "'{n}': '{v}'", '"{n}": "{v}"', "--{n} {v}", "--{n}={v}",
                                  "{{'{n}': '{v}', 'lr': 0.1}}", '{{"{n}": "{v}"}}', "{n} = {v}"]))
    tail = draw(st.sampled_from(["", " done", ", next=1", " epoch=3"]))
    line = prefix + shape.format(n=name, v=value) + tail
    assume(value not in prefix + shape.format(n=name, v="") + tail)  # the value alone can tell
    return line, value


@settings(max_examples=400, deadline=None)
@given(_secret_line())
def test_property_no_generated_secret_survives(case: tuple[str, str]) -> None:
    line, value = case
    assert value not in mask(line), line


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=string.ascii_letters + string.digits + " =:-_./", max_size=60), _values)
def test_property_a_known_value_never_survives_whatever_surrounds_it(noise: str, value: str) -> None:
    # a value stands on its own (separators around it), or is long enough to be masked inside other text
    sep = " " if len(value) < masking.LONG_ANYWHERE else ""
    line = noise[: len(noise) // 2] + sep + value + sep + noise[len(noise) // 2:]
    assert value not in mask(line, [value])


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["epoch", "loss", "accuracy", "lr", "step", "batch_size"]),
       st.floats(min_value=0, max_value=1e6, allow_nan=False).map(lambda f: f"{f:.4f}"))
def test_property_metric_lines_stay_readable(name: str, value: str) -> None:
    line = f"epoch 1/4 {name}={value}"
    assert mask(line) == line


def test_the_logs_command_learns_a_whole_secret_section_the_same_way() -> None:
    # cli/logs.py: the leaves of a key set with --secret (the whole map), as `pulumi config --json` gives them
    got = masking.secret_values(SECTION)
    assert sorted(got) == sorted(["hf_abcdefghijklmnop", "42", "uses the db-pass-8812 account"]), got


def test_a_plain_value_of_a_secret_section_is_still_never_recorded_in_plain_text(section_learnt: None) -> None:
    # readable in printed text, but a run's recorded parameters (in the state) hold no secret value of any kind
    from modelarts_provider.awaiting.history import masked_parameters
    from modelarts_provider.client.models import TrainingJob

    job = TrainingJob.model_validate({"metadata": {"id": "j", "name": "failingsecret-8adyj3"}, "algorithm": {
        "parameters": [{"name": "lr", "value": "0.1"}, {"name": "mode", "value": "fail"},
                       {"name": "epochs", "value": "7"}]}})
    assert mask("--lr=0.1 --mode=fail") == "--lr=0.1 --mode=fail"
    assert masked_parameters(job, masking.in_call()) == {"lr": MASK, "mode": MASK, "epochs": "7"}
    assert masked_parameters(job) == {"lr": "0.1", "mode": "fail", "epochs": "7"}  # another job's: plain


def test_a_sweep_of_shown_job_names_builds_no_pattern_per_job() -> None:
    """Each job of a sweep shows its name and then prints its lines: the pattern is built from the secret values,
    not again for each new name (that was N compiles of N names: quadratic in the sweep's size). A value inside
    a shown name is still left alone."""
    values = frozenset({SECRET, "abc123xyz"})
    masking._values_pattern.cache_clear()
    for i in range(300):
        shown = masking.Secrets(masked=values, shown=frozenset({f"bench-i{i}-e52c96"}))
        assert mask(f"bench-i{i}-e52c96: submitted", shown) == f"bench-i{i}-e52c96: submitted"
    assert masking._values_pattern.cache_info().misses == 1, masking._values_pattern.cache_info()
    shown = masking.Secrets(masked=values, shown=frozenset({"bench-i7-abc123xyz"}))
    assert mask("bench-i7-abc123xyz: submitted", shown) == "bench-i7-abc123xyz: submitted"
    assert mask(f"job bench-i7-abc123xyz got {SECRET}", shown) == f"job bench-i7-abc123xyz got {MASK}"
    assert mask("a lone abc123xyz", shown) == f"a lone {MASK}"


def test_a_bare_key_is_not_secret_looking_but_a_named_one_is() -> None:
    """A sweep point's `key` (its job key) printed in the changed outputs of `./dev up` was masked: nothing that
    is not secret is masked. `api_key`, `secret_key` and the like still are."""
    from modelarts_provider.core.masking import MASK, mask_shapes, secret_looking

    assert not secret_looking("key") and not secret_looking("Keys")
    assert secret_looking("api_key") and secret_looking("HW_SECRET_KEY") and secret_looking("accessKeyId")
    line = '~ sweeps.lr-sweep.best: {"key": "lr-sweep-batchsize32_lr0p1", "api_key": "abcd1234efgh"}'
    assert mask_shapes(line) == f'~ sweeps.lr-sweep.best: {{"key": "lr-sweep-batchsize32_lr0p1", "api_key": "{MASK}"}}'
