"""A configured provider pickles as a reference to its class: no credential, no settings, no client.

Pulumi stores the dill pickle of a dynamic provider in the state (plain, serialize_as_secret_always is
off), and inline / Automation API programs run providers in the program process, configured.
"""

from __future__ import annotations

import base64
import pickle
from typing import Any

import dill
import pytest
from pulumi.dynamic import ConfigureRequest
from pulumi.dynamic.dynamic import serialize_provider

from modelarts_provider.core import clients, provider_base
from modelarts_provider.awaiting.provider import JobsAwaitProvider
from modelarts_provider.training_job.provider import TrainingJobProvider

from .common import job_inputs
from .fakes import FakeClient

SECRET_KEY = "sk-Zq9-very-secret-value"
ACCESS_KEY = "AK-4411-distinct"
TOKEN = "tok-8812-security-token"
PROJECT_ID = "proj-7731-distinct"
SECRETS = [SECRET_KEY, ACCESS_KEY, TOKEN, PROJECT_ID, "ap-southeast-1"]

PROVIDERS = [(TrainingJobProvider, b"modelarts_provider.training_job.provider", b"TrainingJobProvider"),
             (JobsAwaitProvider, b"modelarts_provider.awaiting.provider", b"JobsAwaitProvider")]


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(provider_base, "start_orphan_watchdog", lambda *a, **k: None)  # never in pytest
    monkeypatch.setattr(clients, "_CLIENTS", {})
    for key in ("HW_REGION_NAME", "HW_PROJECT_ID", "HW_ACCESS_KEY", "HW_SECRET_KEY", "HW_SECURITY_TOKEN"):
        monkeypatch.delenv(key, raising=False)


def credentials_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HW_REGION_NAME", "ap-southeast-1")
    monkeypatch.setenv("HW_PROJECT_ID", PROJECT_ID)
    monkeypatch.setenv("HW_ACCESS_KEY", ACCESS_KEY)
    monkeypatch.setenv("HW_SECRET_KEY", SECRET_KEY)
    monkeypatch.setenv("HW_SECURITY_TOKEN", TOKEN)


def pickles(p: Any) -> list[bytes]:
    return [dill.dumps(p), dill.dumps(p, recurse=True), base64.b64decode(serialize_provider(p)), pickle.dumps(p)]


def assert_by_reference(raw: bytes, module: bytes, cls: bytes, kind: type) -> None:
    for secret in SECRETS:
        assert secret.encode() not in raw, f"{secret} in the pickle"
    assert module in raw and cls in raw
    assert b"secret" not in raw.lower() and b"settings" not in raw.lower()
    assert len(raw) < 200
    back = pickle.loads(raw)
    assert type(back) is kind and back.__dict__ == {} and back._settings is None


@pytest.mark.parametrize("kind,module,cls", PROVIDERS)
def test_configured_provider_with_credentials_in_the_environment_pickles_by_reference(monkeypatch, kind, module, cls):
    credentials_in_env(monkeypatch)
    p = kind()
    p.configure(ConfigureRequest({}))
    assert p._config_error is None
    assert p._settings.secret_key.get_secret_value() == SECRET_KEY  # it did read them
    p._api()  # a real client (credentials inside) now sits in the process's client cache
    assert len(clients._CLIENTS) == 1
    for raw in pickles(p):
        assert_by_reference(raw, module, cls, kind)


@pytest.mark.parametrize("kind,module,cls", PROVIDERS)
def test_configured_provider_with_credentials_in_stack_config_pickles_by_reference(kind, module, cls):
    p = kind()
    p.configure(ConfigureRequest({"modelarts:region": "ap-southeast-1", "modelarts:projectId": PROJECT_ID,
                                  "modelarts:accessKey": ACCESS_KEY, "modelarts:secretKey": SECRET_KEY,
                                  "modelarts:securityToken": TOKEN}))
    assert p._settings is not None and p._settings.access_key == ACCESS_KEY
    for raw in pickles(p):
        assert_by_reference(raw, module, cls, kind)


def test_a_provider_that_created_jobs_still_pickles_by_reference(monkeypatch):
    credentials_in_env(monkeypatch)
    p = TrainingJobProvider()
    p.configure(ConfigureRequest({}))
    fake = FakeClient()
    fake.secret = SECRET_KEY  # anything reachable from the instance would leak it
    p._api = lambda: fake  # type: ignore[method-assign]
    from modelarts_provider.training_job.check import check_inputs

    p.create(check_inputs(job_inputs())[0])
    assert p._index is not None and fake.count("create") == 1
    for raw in pickles(p):
        assert_by_reference(raw, *PROVIDERS[0][1:], TrainingJobProvider)


def test_a_configuration_error_is_not_pickled_either():
    p = TrainingJobProvider()
    p.configure(ConfigureRequest({"modelarts:region": "ap-southeast-1", "modelarts:secretKey": SECRET_KEY}))
    assert p._config_error is not None and SECRET_KEY not in p._config_error
    for raw in pickles(p):
        assert b"projectId" not in raw and SECRET_KEY.encode() not in raw
