from __future__ import annotations

import pickle

import pytest

from modelarts_provider.provider_config import ProviderConfigError, resolve_settings, unknown_keys

SK = "very-secret-sk-value"


def cfg(values):
    return lambda k: values.get(k)


def test_config_wins_over_env_and_secrets_are_hidden():
    s = resolve_settings(cfg({"region": "cn-north-4", "projectId": "p", "accessKey": "AK", "secretKey": SK}),
                         {"HW_REGION_NAME": "ap-southeast-1", "HW_SECRET_KEY": "other"})
    assert s.region == "cn-north-4" and s.cloud == "huaweicloud"
    assert s.secret_key.get_secret_value() == SK and SK not in repr(s) and SK not in str(s)


def test_hw_env_fallback():
    s = resolve_settings(cfg({}), {"HW_REGION_NAME": "cn-north-4", "HW_PROJECT_ID": "p",
                                   "HW_ACCESS_KEY": "AK", "HW_SECRET_KEY": SK, "HW_SECURITY_TOKEN": "tok"})
    assert s.access_key == "AK" and s.security_token.get_secret_value() == "tok"


def test_otc_env_means_otc():
    s = resolve_settings(cfg({}), {"OS_REGION_NAME": "eu-de", "OS_PROJECT_ID": "p", "OS_USERNAME": "u",
                                   "OS_PASSWORD": SK, "OS_DOMAIN_NAME": "d"})
    assert s.cloud == "otc" and s.iam_user == "u"


@pytest.mark.parametrize("values,fragment", [
    ({"projectId": "p", "accessKey": "AK", "secretKey": SK}, "modelarts:region"),
    ({"region": "r", "accessKey": "AK", "secretKey": SK}, "modelarts:projectId"),
    ({"region": "r", "projectId": "p"}, "no credentials"),
    ({"region": "r", "projectId": "p", "accessKey": "AK"}, "modelarts:secretKey"),
    ({"region": "r", "projectId": "p", "iamUser": "u", "iamPassword": SK}, "modelarts:iamDomain"),
    ({"region": "r", "projectId": "p", "accessKey": "AK", "secretKey": SK, "cloud": "aws"}, "modelarts:cloud"),
    ({"region": "r", "projectId": "p", "accessKey": "AK", "secretKey": SK, "endpoint": "ftp://x"}, "endpoint"),
])
def test_errors_name_the_key_never_the_value(values, fragment):
    with pytest.raises(ProviderConfigError) as e:
        resolve_settings(cfg(values), {})
    assert fragment in str(e.value) and SK not in str(e.value)


def test_unknown_modelarts_keys():
    assert unknown_keys(["modelarts:region", "modelarts:secretkey", "other:x"]) == ["modelarts:secretkey"]


@pytest.mark.parametrize("resource_module,module", [
    ("modelarts_provider.training_job.resource", b"modelarts_provider.training_job.provider"),
    ("modelarts_provider.awaiting.resource", b"modelarts_provider.awaiting.provider"),
])
def test_provider_pickles_by_reference_without_settings(resource_module, module):
    from pulumi.dynamic.dynamic import serialize_provider
    import base64
    import importlib

    provider = importlib.import_module(resource_module).PROVIDER  # the one object every resource uses
    raw = base64.b64decode(serialize_provider(provider))
    assert module in raw and len(raw) < 200
    assert pickle.loads(raw).__dict__ == {}
