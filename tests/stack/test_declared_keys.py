"""stack/declared_keys.py: a pool's or network's argument declared with a config key is a key of the stack config,
with the argument's own type, rules, default and description, passed on as it is (only when written)."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ValidationError
from pydantic.alias_generators import to_snake

from modelarts_provider.core.fields import configured
from modelarts_provider.network.args import NetworkArgs
from modelarts_provider.resource_pool.args import ResourcePoolArgs
from modelarts_provider.stack.config import NetworkConfig, PoolCreate
from modelarts_provider.stack.declared_keys import arg_values


@pytest.mark.parametrize("entry,args", [(PoolCreate, ResourcePoolArgs), (NetworkConfig, NetworkArgs)])
def test_each_configured_argument_is_a_key_with_the_arguments_rules(entry: type[BaseModel],
                                                                    args: type[BaseModel]) -> None:
    found = configured(args)
    assert found, "the resource names no config key"
    for c in found:
        field = entry.model_fields[to_snake(c.key)]
        assert field.alias == c.key
        assert field.annotation == c.info.annotation and field.metadata[:len(c.info.metadata)] == c.info.metadata
        assert field.get_default(call_default_factory=True) == c.info.get_default(call_default_factory=True)
        assert field.description == c.info.description


def test_the_pool_keys_are_the_ones_users_wrote_before() -> None:
    # the stack config's keys did not change when they came to be derived (docs/pools.md documents them)
    assert [f.alias for f in PoolCreate.model_fields.values()] == [
        "flavor", "nodes", "network", "name", "description", "timeoutSeconds", "pollIntervalSeconds", "forceDelete"]
    assert [f.alias for f in NetworkConfig.model_fields.values()] == ["name", "cidr", "forceDelete"]


def test_written_keys_pass_on_as_arguments_the_rest_keep_the_arguments_defaults() -> None:
    pool = PoolCreate.model_validate({"flavor": "f", "nodes": 2, "network": "n", "description": "d",
                                      "forceDelete": True})
    assert arg_values(pool, ResourcePoolArgs) == {"description": "d", "force_delete": True}
    assert arg_values(NetworkConfig.model_validate({}), NetworkArgs) == {}
    with pytest.raises(ValidationError, match="timeoutSeconds"):  # the argument's rule: at most 6 h
        PoolCreate.model_validate({"flavor": "f", "nodes": 2, "network": "n", "timeoutSeconds": 7 * 3600})


def test_a_takeover_compares_every_field_the_create_sends_along_its_path() -> None:
    # core/fields.differing: what the pool's and network's takeover compare beyond the fields they word themselves
    from modelarts_provider.client.pool_models import Pool
    from modelarts_provider.core.fields import differing

    args = ResourcePoolArgs.model_validate({"name": "pool-one", "resources": [{"flavor": "f", "count": 2}],
                                            "network": "net-b", "workspace_id": "w1"})
    live = Pool.model_validate({"metadata": {"name": "pool-x", "labels": {"os.modelarts/name": "pool-one",
                                                                          "os.modelarts/workspace.id": "w1"}},
                                "spec": {"scope": ["Train"], "resources": [{"flavor": "f", "count": 2}],
                                         "network": {"name": "net-a"}}}).model_dump(by_alias=True, exclude_none=True)
    assert differing(args, live) == [("resources", [{"flavor": "f", "count": 2}],
                                      [{"flavor": "f", "count": 2, "maxCount": 2}]), ("network", "net-a", "net-b")]
    assert differing(args, live, frozenset({"resources", "network"})) == []  # the labels (name, workspace) match
