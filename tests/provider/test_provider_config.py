from __future__ import annotations

import pickle

import pytest

from modelarts_provider.core.provider_config import ProviderConfigError, resolve_settings, unknown_keys

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


AKSK = {"region": "eu-de", "projectId": "p", "accessKey": "AK", "secretKey": SK}


@pytest.mark.parametrize("name,accepted", [("eu-de", True), ("eu-de_team-a", True), ("eu-nl", False),
                                           ("eu-de-team", False), ("team", False)])
def test_project_name_belongs_to_the_region(name, accepted):
    if accepted:
        assert resolve_settings(cfg({**AKSK, "projectName": name}), {}).project_name == name
    else:
        with pytest.raises(ProviderConfigError, match="is not a project of region 'eu-de'"):
            resolve_settings(cfg({**AKSK, "projectName": name}), {})


def test_ca_bundle_must_be_a_file(tmp_path):
    bundle = tmp_path / "ca.pem"
    bundle.write_text("-----BEGIN CERTIFICATE-----\n")
    assert resolve_settings(cfg({**AKSK, "caBundle": str(bundle)}), {}).ca_bundle == str(bundle)
    with pytest.raises(ProviderConfigError, match="caBundle .* is not a readable file"):
        resolve_settings(cfg({**AKSK, "caBundle": str(tmp_path)}), {})


@pytest.mark.parametrize("key", ["endpoint", "obsEndpoint", "iamEndpoint"])
def test_endpoints_are_http_urls(key):
    assert resolve_settings(cfg({**AKSK, key: "https://h:443"}), {})
    with pytest.raises(ProviderConfigError, match=f"modelarts:{key} must be an http\\(s\\) URL"):
        resolve_settings(cfg({**AKSK, key: "h:443"}), {})


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
