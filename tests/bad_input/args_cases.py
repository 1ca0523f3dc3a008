"""Bad TrainingJob args used directly (the provider's check), each with the exact refusal `pulumi
preview` must show: `<property>: <reason>` from `property <p> value {...} has a problem: <reason>`."""

from __future__ import annotations

from typing import Any

from tests.bad_input.mutations import DELETE, Case, Mutation, both, put

BUCKET = "obs://emulator-bucket"
VALID_ARGS: dict[str, Any] = {
    "name": "direct-args-job",
    "algorithm": {"code_dir": f"{BUCKET}/code/", "boot_file": f"{BUCKET}/code/train.py",
                  "engine": {"engine_name": "PyTorch",
                             "engine_version": "pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64"}},
    "flavor_id": "modelarts.p3.large.public",
}
ALGO_ID = "8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7"
OWNER = {"stack": "organization/bad-input-args/dev", "resource": "direct", "token": "0123456789abcdef"}


def top(name: str, value: Any) -> Mutation:
    return put((name,), value)


def alg(*path_and_value: Any) -> Mutation:
    """algorithm.<path...> = value."""
    *path, value = path_and_value
    return put(("algorithm", *path), value)


BY_ID = both(alg("code_dir", DELETE), alg("boot_file", DELETE), alg("engine", DELETE), alg("id", ALGO_ID))
NO_CODE = both(alg("code_dir", DELETE), alg("boot_file", DELETE), alg("engine", DELETE))
DATA = f"{BUCKET}/data/"
OUT = f"{BUCKET}/out/"


# Lists are set whole (e.g. algorithm.parameters = [...]) so that the mutation applies to the valid args.
def _list_at(path: tuple[Any, ...], item: dict[str, Any]) -> Mutation:
    return put(path, [{k: v for k, v in item.items() if v is not None}])  # None: leave the key out


def p(*fields: tuple[str, Any]) -> Mutation:
    return _list_at(("algorithm", "parameters"), {"name": "lr", "value": "0.1", **dict(fields)})


def inp(**fields: Any) -> Mutation:
    return _list_at(("algorithm", "inputs"), {"name": "data_url", "obs_url": DATA, **fields})


def outp(**fields: Any) -> Mutation:
    return _list_at(("algorithm", "outputs"), {"name": "train_url", "obs_url": OUT, **fields})


def PARAM(name: str) -> tuple[Any, ...]:
    return ("algorithm", "parameters", 0, name)


def INPUT(*rest: Any) -> tuple[Any, ...]:
    return ("algorithm", "inputs", 0, *rest)


def OUTPUT(name: str) -> tuple[Any, ...]:
    return ("algorithm", "outputs", 0, name)


def SEARCH(*rest: Any) -> tuple[Any, ...]:
    return ("algorithm", "policies", "auto_search", *rest)


ARGS_CASES: list[Case] = [
    # --- metadata and resources ---
    Case("args-name-with-space", top("name", "has space"),
         "name: 'has space' is not a valid job name: 1-64 characters of letters, digits, underscores and "
         'hyphens'),
    # a trailing newline passes a Python `$` (it matches before a final newline): refused at preview too
    Case("args-name-trailing-newline", top("name", "job-a\n"),
         "name: 'job-a\\n' is not a valid job name: 1-64 characters of letters, digits, underscores and "
         'hyphens'),
    Case("args-description-too-long", top("description", "d" * 257),
         'description: must be at most 256 characters (got 257)'),
    Case("args-workspace-id-not-string", top("workspace_id", 5),
         'workspace_id: must be a string, not a number 5'),
    Case("args-tag-value-bad", top("tags", {"team": "a|b"}),
         "tags: tag team: 'a|b' is not a valid tag value: 0-255 letters, digits, spaces and _ . : / = + - @"),
    Case("args-annotations-list-value", top("annotations", {"team": ["a", "b"]}),
         'annotations.team: must be a string, not a list'),
    Case("args-annotations-owner-prefix", top("annotations", {"modelarts-pulumi/token": "0123456789abcdef"}),
         "annotations: modelarts-pulumi/token: keys starting with modelarts-pulumi/ are the owner mark this tool "
         "writes itself; use another prefix"),
    # secret_paths is set by the stack program (paths only); given by hand, it is checked too.
    Case("args-secret-paths-not-a-list", top("secret_paths", "algorithm.environments.X"),
         "secret_paths: must be a list, not a string 'algorithm.environments.X'"),
    # The owner mark is set by the TrainingJob resource; given by hand (library use), it is checked too.
    Case("args-owner-not-a-map", top("owner", "me"),
         "owner: must be a map, not a string 'me'"),
    Case("args-owner-stack-empty", both(top("owner", OWNER), put(("owner", "stack"), "")),
         "owner.stack: must not be empty"),
    Case("args-owner-resource-missing", both(top("owner", OWNER), put(("owner", "resource"), DELETE)),
         "owner.resource: is required"),
    Case("args-owner-token-not-hex", both(top("owner", OWNER), put(("owner", "token"), "not-a-token")),
         "owner.token: must be 16-64 lowercase hexadecimal characters (a pulumi-random RandomId's hex)"),
    Case("args-owner-key-not-hex", both(top("owner", OWNER), put(("owner", "key"), "not-a-key")),
         "owner.key: must be 64 lowercase hexadecimal characters (derived from the stack's seed)"),
    # Set by the stack program (where checked values were declared, for the catalog check's messages).
    Case("args-config-keys-not-a-map", top("config_keys", "x"),
         "config_keys: must be a map, not a string 'x'"),
    Case("args-kind-not-job", top("kind", "batch"),
         "kind: must be job, not 'batch'"),
    Case("args-algorithm-missing", top("algorithm", DELETE),
         "algorithm: is required: one of id, subscription_id + item_version_id, code_dir + boot_file + engine, "
         "or engine.image_url + command"),
    Case("args-tasks-not-implemented", top("tasks", [{"role": "worker", "task_resource": {"node_count": 1}}]),
         'tasks: is not supported: the service documents the task list as not implemented; declare '
         'algorithm with flavor_id/pool_id instead'),
    Case("args-no-flavor-no-pool", top("flavor_id", DELETE),
         'flavor_id: is required: set flavor_id, or pool_id (+ flavor_id) for a dedicated pool'),
    Case("args-pool-id-empty", top("pool_id", ""),
         'pool_id: must not be empty'),
    Case("args-node-count-negative", top("node_count", -1),
         'node_count: must be at least 1, not -1'),
    Case("args-node-count-string", top("node_count", "one"),
         "node_count: must be a whole number, not a string 'one'"),
    Case("args-volume-missing-local-path", top("volumes", [{"nfs_server_path": "10.0.0.1:/data"}]),
         'volumes[0].local_path: is required',
         covers=(("volumes", 0, "local_path"),)),
    Case("args-volume-bad-server-path", top("volumes", [{"nfs_server_path": "10.0.0.1", "local_path": "/mnt"}]),
         "volumes[0].nfs_server_path: '10.0.0.1' is not an NFS server path: host:/path, e.g. "
         '192.168.0.82:/data', covers=(("volumes", 0, "nfs_server_path"),)),
    Case("args-volume-read-only-not-bool", top("volumes", [{"nfs_server_path": "10.0.0.1:/data", "local_path": "/mnt",
                                                            "read_only": "perhaps"}]),
         "volumes[0].read_only: must be a boolean (true or false), not a string 'perhaps'",
         covers=(("volumes", 0, "read_only"),)),
    Case("args-volumes-not-a-list", top("volumes", "10.0.0.1:/data"),
         "volumes: must be a list, not a string '10.0.0.1:/data'"),
    Case("args-log-export-not-a-map", top("log_export_path", f"{BUCKET}/logs/"),
         "log_export_path: must be a map, not a string 'obs://emulator-bucket/logs/'"),
    Case("args-log-export-s3", top("log_export_path", {"obs_url": "s3://b/logs/"}),
         'log_export_path.obs_url: must be an OBS URL such as obs://bucket/path/ (or /bucket/path/), not '
         "'s3://b/logs/'",
         covers=(("log_export_path", "obs_url"),)),
    Case("args-log-export-host-path-not-string", top("log_export_path", {"host_path": ["/var/log"]}),
         'log_export_path.host_path: must be a string, not a list',
         covers=(("log_export_path", "host_path"),)),
    Case("args-auto-stop-zero", top("auto_stop", {"duration": 0}),
         'auto_stop.duration: must be at least 1, not 0', covers=(("auto_stop", "duration"),)),
    Case("args-auto-stop-days", top("auto_stop", {"time_unit": "DAYS", "duration": 1}),
         "auto_stop.time_unit: must be HOURS, not 'DAYS'",
         covers=(("auto_stop", "time_unit"),)),
    Case("args-auto-stop-not-a-map", top("auto_stop", 24),
         'auto_stop: must be a map, not a number 24'),
    # --- provider options ---
    Case("args-wait-for-bad", top("wait_for", "sometimes"),
         "wait_for: must be one of none, created, running or completed, not 'sometimes'"),
    Case("args-wait-timeout-zero", top("wait_timeout_seconds", 0),
         'wait_timeout_seconds: must be greater than 0, not 0'),
    Case("args-poll-interval-tiny", top("poll_interval_seconds", 0.01),
         'poll_interval_seconds: must be at least 0.05, not 0.01'),
    Case("args-delete-timeout-too-long", top("delete_timeout_seconds", 90000),
         'delete_timeout_seconds: must be at most 86400, not 90000'),
    Case("args-delete-before-replace-not-bool", top("delete_before_replace", "perhaps"),
         "delete_before_replace: must be a boolean (true or false), not a string 'perhaps'"),
    Case("args-keep-finished-runs-with-a-name", top("keep_finished_runs", True),
         "keep_finished_runs: needs a derived name (leave name unset): a kept run keeps its name, which its "
         "successor could then not use"),
    Case("args-output-per-run-with-a-name", top("output_per_run", True),
         "output_per_run: needs a derived name (leave name unset): the run's folder is named after the derived job "
         "name, renewed with each run"),
    Case("args-keep-runs-too-many", top("keep_runs", 1001), "keep_runs: must be at most 1000, not 1001"),
    Case("args-retries-zero", top("retries", 0), "retries: must be at least 1, not 0"),
    Case("args-retries-and-its-annotation", top("retries", 2) + top("annotations", {"fault-tolerance/job-retry-num": "3"}),
         "annotations: sets the annotation fault-tolerance/job-retry-num: set retries or that annotation, not both"),
    Case("args-replace-failed-not-bool", top("replace_failed", "perhaps"),
         "replace_failed: must be a boolean (true or false), not a string 'perhaps'"),
    Case("args-adopt-job-id-empty", top("adopt_job_id", ""),
         'adopt_job_id: must not be empty'),
    Case("args-derived-name-not-bool", top("derived_name", "perhaps"),
         "derived_name: must be a boolean (true or false), not a string 'perhaps'"),
    Case("args-unknown-field", top("flavour_id", "x"),
         'flavour_id: is not a known field', covers=()),
    # --- algorithm forms ---
    Case("args-id-and-code-dir", alg("id", ALGO_ID),
         "algorithm: set exactly one algorithm form: id, subscription_id + item_version_id, code_dir + boot_file "
         "+ engine, or engine.image_url + command; found: id, code_dir + boot_file"),
    Case("args-algorithm-name-not-string", alg("name", 5),
         'algorithm.name: must be a string, not a number 5'),
    Case("args-subscription-without-version", NO_CODE + alg("subscription_id", "sub-1"),
         'algorithm.item_version_id: subscription_id and item_version_id must be set together',
         covers=(("algorithm", "item_version_id"),)),
    Case("args-version-without-subscription", NO_CODE + alg("item_version_id", "v1"),
         'algorithm.subscription_id: subscription_id and item_version_id must be set together',
         covers=(("algorithm", "subscription_id"),)),
    Case("args-engine-with-algorithm-id", BY_ID + alg("engine", {"engine_id": "e1"}),
         'algorithm.engine: must be left blank when the algorithm is given by id or subscription',
         covers=(("algorithm", "engine"),)),
    Case("args-code-dir-http", alg("code_dir", "http://example.com/code/"),
         'algorithm.code_dir: must be an OBS URL such as obs://bucket/path/ (or /bucket/path/), not '
         "'http://example.com/code/'"),
    Case("args-code-dir-dot-dot", alg("code_dir", f"{BUCKET}/code/../../x/"),
         "algorithm.code_dir: must not contain '..' or '//' inside the path: "
         "'obs://emulator-bucket/code/../../x/'"),
    Case("args-boot-file-outside-code-dir", alg("boot_file", f"{BUCKET}/other/train.py"),
         "algorithm.boot_file: must be inside code_dir 'obs://emulator-bucket/code/' (the service requires "
         "it), not 'obs://emulator-bucket/other/train.py'"),
    Case("args-autosearch-config-s3", alg("autosearch_config_path", "s3://b/search.yaml"),
         'algorithm.autosearch_config_path: must be an OBS URL such as obs://bucket/path/ (or '
         "/bucket/path/), not 's3://b/search.yaml'"),
    Case("args-autosearch-framework-double-slash", alg("autosearch_framework_path", f"{BUCKET}/fw//x.py"),
         "algorithm.autosearch_framework_path: must not contain '..' or '//' inside the path: "
         "'obs://emulator-bucket/fw//x.py'"),
    Case("args-command-empty", alg("command", ""),
         'algorithm.command: must not be empty'),
    Case("args-local-code-dir-outside-home", alg("local_code_dir", "/tmp/code"),
         "algorithm.local_code_dir: must be a directory under /home (API rule), not '/tmp/code'"),
    Case("args-working-dir-not-string", alg("working_dir", 5),
         'algorithm.working_dir: must be a string, not a number 5'),
    Case("args-environments-bad-name", alg("environments", {"1BAD": "x"}),
         "algorithm.environments.1BAD: '1BAD' is not a valid environment variable name: letters, digits, "
         "'_', '.' and '-'; starts with a letter or '_'"),
    Case("args-policies-not-a-map", alg("policies", "fast"),
         "algorithm.policies: must be a map, not a string 'fast'"),
    # --- engine ---
    Case("args-engine-id-not-string", alg("engine", {"engine_id": 5}),
         'algorithm.engine.engine_id: must be a string, not a number 5', covers=(("algorithm", "engine", "engine_id"),)),
    Case("args-engine-name-without-version", alg("engine", {"engine_name": "PyTorch"}),
         'algorithm.engine.engine_version: engine_name and engine_version must be set together',
         covers=(("algorithm", "engine", "engine_version"),)),
    Case("args-engine-version-without-name", alg("engine", {"engine_version": "pytorch_1.8.0"}),
         'algorithm.engine.engine_name: engine_name and engine_version must be set together',
         covers=(("algorithm", "engine", "engine_name"),)),
    Case("args-engine-image-not-string", NO_CODE + alg("engine", {"image_url": ["a"]}) + alg("command", "run"),
         'algorithm.engine.image_url: must be a string, not a list',
         covers=(("algorithm", "engine", "image_url"),)),
    # --- parameters ---
    Case("args-parameter-name-bad", p(("name", "learning rate")),
         "algorithm.parameters[0].name: 'learning rate' is not a valid name: letters, digits, '_', '.' and "
         "'-' only", covers=(PARAM("name"),)),
    Case("args-parameter-value-list", p(("value", [1, 2])),
         'algorithm.parameters[0].value: must be a string, not a list', covers=(PARAM("value"),)),
    Case("args-parameter-description-not-string", p(("description", 5)),
         'algorithm.parameters[0].description: must be a string, not a number 5', covers=(PARAM("description"),)),
    Case("args-parameter-constraint-not-a-map", p(("constraint", "required")),
         "algorithm.parameters[0].constraint: must be a map, not a string 'required'", covers=(PARAM("constraint"),)),
    Case("args-parameter-i18n-not-a-map", p(("i18n_description", "en")),
         "algorithm.parameters[0].i18n_description: must be a map, not a string 'en'", covers=(PARAM("i18n_description"),)),
    Case("args-parameters-duplicate", alg("parameters", [{"name": "lr", "value": "1"}, {"name": "lr", "value": "2"}]),
         "algorithm.parameters: parameter names must be unique: 'lr' given more than once"),
    Case("args-constraint-type-not-string", p(("constraint", {"type": 5})),
         'algorithm.parameters[0].constraint.type: must be a string, not a number 5', covers=(PARAM("constraint") + ("type",),)),
    Case("args-constraint-editable-not-bool", p(("constraint", {"editable": "perhaps"})),
         'algorithm.parameters[0].constraint.editable: must be a boolean (true or false), not a string '
         "'perhaps'",
         covers=(PARAM("constraint") + ("editable",),)),
    Case("args-constraint-required-not-bool", p(("constraint", {"required": "perhaps"})),
         'algorithm.parameters[0].constraint.required: must be a boolean (true or false), not a string '
         "'perhaps'",
         covers=(PARAM("constraint") + ("required",),)),
    Case("args-constraint-sensitive-not-bool", p(("constraint", {"sensitive": "perhaps"})),
         'algorithm.parameters[0].constraint.sensitive: must be a boolean (true or false), not a string '
         "'perhaps'",
         covers=(PARAM("constraint") + ("sensitive",),)),
    Case("args-constraint-valid-type-not-string", p(("constraint", {"valid_type": ["Int"]})),
         'algorithm.parameters[0].constraint.valid_type: must be a string, not a list',
         covers=(PARAM("constraint") + ("valid_type",),)),
    Case("args-constraint-valid-range-not-list", p(("constraint", {"valid_range": "1-10"})),
         "algorithm.parameters[0].constraint.valid_range: must be a list, not a string '1-10'",
         covers=(PARAM("constraint") + ("valid_range",),)),
    Case("args-i18n-language-not-string", p(("i18n_description", {"language": 5})),
         'algorithm.parameters[0].i18n_description.language: must be a string, not a number 5',
         covers=(PARAM("i18n_description") + ("language",),)),
    Case("args-i18n-description-not-string", p(("i18n_description", {"description": ["x"]})),
         'algorithm.parameters[0].i18n_description.description: must be a string, not a list',
         covers=(PARAM("i18n_description") + ("description",),)),
    # --- inputs and outputs ---
    Case("args-input-name-empty", inp(name=""),
         'algorithm.inputs[0].name: must not be empty', covers=(INPUT("name"),)),
    Case("args-input-obs-and-dataset", inp(dataset={"id": "d", "version_id": "v"}),
         'algorithm.inputs[0].obs_url: set exactly one of obs_url or dataset', covers=(INPUT("obs_url"),)),
    Case("args-input-s3", inp(obs_url="s3://b/data/"),
         'algorithm.inputs[0].obs_url: must be an OBS URL such as obs://bucket/path/ (or /bucket/path/), '
         "not 's3://b/data/'", covers=(INPUT("obs_url"),)),
    Case("args-input-dataset-not-a-map", inp(obs_url=None, dataset="d1"),
         "algorithm.inputs[0].dataset: must be a map, not a string 'd1'", covers=(INPUT("dataset"),)),
    Case("args-dataset-id-empty", inp(obs_url=None, dataset={"id": "", "version_id": "v"}),
         'algorithm.inputs[0].dataset.id: must not be empty',
         covers=(INPUT("dataset", "id"),)),
    Case("args-dataset-version-missing", inp(obs_url=None, dataset={"id": "d"}),
         'algorithm.inputs[0].dataset.version_id: is required',
         covers=(INPUT("dataset", "version_id"),)),
    Case("args-dataset-obs-url-not-string", inp(obs_url=None, dataset={"id": "d", "version_id": "v", "obs_url": 5}),
         'algorithm.inputs[0].dataset.obs_url: must be a string, not a number 5', covers=(INPUT("dataset", "obs_url"),)),
    Case("args-input-local-dir-not-string", inp(local_dir=5),
         'algorithm.inputs[0].local_dir: must be a string, not a number 5', covers=(INPUT("local_dir"),)),
    Case("args-input-description-not-string", inp(description=5),
         'algorithm.inputs[0].description: must be a string, not a number 5', covers=(INPUT("description"),)),
    Case("args-input-remote-constraint-not-list", inp(remote_constraint="image"),
         "algorithm.inputs[0].remote_constraint: must be a list, not a string 'image'",
         covers=(INPUT("remote_constraint"),)),
    Case("args-remote-constraint-data-type-not-string", inp(remote_constraint=[{"data_type": 5}]),
         'algorithm.inputs[0].remote_constraint[0].data_type: must be a string, not a number 5',
         covers=(INPUT("remote_constraint", 0, "data_type"),)),
    Case("args-remote-constraint-attributes-not-string", inp(remote_constraint=[{"attributes": ["a"]}]),
         'algorithm.inputs[0].remote_constraint[0].attributes: must be a string, not a list',
         covers=(INPUT("remote_constraint", 0, "attributes"),)),
    Case("args-inputs-duplicate", alg("inputs", [{"name": "d", "obs_url": DATA}, {"name": "d", "obs_url": DATA}]),
         "algorithm.inputs: channel names must be unique: 'd' given more than once"),
    Case("args-output-bad-obs", outp(obs_url="s3://b/out/"),
         'algorithm.outputs[0].obs_url: must be an OBS URL such as obs://bucket/path/ (or /bucket/path/), '
         "not 's3://b/out/'", covers=(OUTPUT("obs_url"),)),
    Case("args-output-name-empty", outp(name=""),
         'algorithm.outputs[0].name: must not be empty', covers=(OUTPUT("name"),)),
    Case("args-output-local-dir-not-string", outp(local_dir=5),
         'algorithm.outputs[0].local_dir: must be a string, not a number 5', covers=(OUTPUT("local_dir"),)),
    Case("args-output-description-not-string", outp(description=5),
         'algorithm.outputs[0].description: must be a string, not a number 5', covers=(OUTPUT("description"),)),
    Case("args-outputs-duplicate", alg("outputs", [{"name": "o", "obs_url": OUT}, {"name": "o", "obs_url": OUT}]),
         "algorithm.outputs: channel names must be unique: 'o' given more than once"),
    # --- auto search (policies.auto_search) ---
    Case("args-auto-search-not-a-map", alg("policies", {"auto_search": "on"}),
         "algorithm.policies.auto_search: must be a map, not a string 'on'",
         covers=(("algorithm", "policies", "auto_search"),)),
    Case("args-skip-search-params-not-string", alg("policies", {"auto_search": {"skip_search_params": 5}}),
         'algorithm.policies.auto_search.skip_search_params: must be a string, not a number 5',
         covers=(SEARCH("skip_search_params"),)),
    Case("args-reward-attrs-not-list", alg("policies", {"auto_search": {"reward_attrs": "accuracy"}}),
         "algorithm.policies.auto_search.reward_attrs: must be a list, not a string 'accuracy'",
         covers=(SEARCH("reward_attrs"),)),
    Case("args-reward-name-not-string", alg("policies", {"auto_search": {"reward_attrs": [{"name": 5}]}}),
         'algorithm.policies.auto_search.reward_attrs[0].name: must be a string, not a number 5',
         covers=(SEARCH("reward_attrs", 0, "name"),)),
    Case("args-reward-mode-bad", alg("policies", {"auto_search": {"reward_attrs": [{"mode": "maximum"}]}}),
         "algorithm.policies.auto_search.reward_attrs[0].mode: must be max or min, not 'maximum'",
         covers=(SEARCH("reward_attrs", 0, "mode"),)),
    Case("args-reward-regex-not-string", alg("policies", {"auto_search": {"reward_attrs": [{"regex": 5}]}}),
         'algorithm.policies.auto_search.reward_attrs[0].regex: must be a string, not a number 5',
         covers=(SEARCH("reward_attrs", 0, "regex"),)),
    Case("args-search-num-samples-above-the-cap", alg("policies", {"auto_search": {"algo_configs": [
             {"name": "tpe_search", "params": [{"key": "num_samples", "value": "10000000", "type": "Integer"}]}]}}),
         "algorithm.policies.auto_search.algo_configs[0].params[0].value: num_samples must be a whole number from 1 "
         "to 1000 (the trials a search may run)",
         covers=(SEARCH("algo_configs", 0, "params", 0, "value"),)),
    Case("args-search-params-not-list", alg("policies", {"auto_search": {"search_params": "lr"}}),
         "algorithm.policies.auto_search.search_params: must be a list, not a string 'lr'",
         covers=(SEARCH("search_params"),)),
    Case("args-search-param-name-not-string", alg("policies", {"auto_search": {"search_params": [{"name": 5}]}}),
         'algorithm.policies.auto_search.search_params[0].name: must be a string, not a number 5', covers=(SEARCH("search_params", 0, "name"),)),
    Case("args-search-param-type-bad", alg("policies", {"auto_search": {"search_params": [{"param_type": "grid"}]}}),
         'algorithm.policies.auto_search.search_params[0].param_type: must be continuous or discrete, not '
         "'grid'", covers=(SEARCH("search_params", 0, "param_type"),)),
    Case("args-search-lower-bound-list", alg("policies", {"auto_search": {"search_params": [{"lower_bound": [0]}]}}),
         'algorithm.policies.auto_search.search_params[0].lower_bound: must be a string, not a list', covers=(SEARCH("search_params", 0, "lower_bound"),)),
    Case("args-search-upper-bound-list", alg("policies", {"auto_search": {"search_params": [{"upper_bound": [1]}]}}),
         'algorithm.policies.auto_search.search_params[0].upper_bound: must be a string, not a list', covers=(SEARCH("search_params", 0, "upper_bound"),)),
    Case("args-search-points-num-list",
         alg("policies", {"auto_search": {"search_params": [{"discrete_points_num": [3]}]}}),
         'algorithm.policies.auto_search.search_params[0].discrete_points_num: must be a string, not a '
         'list',
         covers=(SEARCH("search_params", 0, "discrete_points_num"),)),
    Case("args-search-discrete-values-not-list",
         alg("policies", {"auto_search": {"search_params": [{"discrete_values": "1,2"}]}}),
         'algorithm.policies.auto_search.search_params[0].discrete_values: must be a list, not a string '
         "'1,2'",
         covers=(SEARCH("search_params", 0, "discrete_values"),)),
    Case("args-algo-configs-not-list", alg("policies", {"auto_search": {"algo_configs": "tpe"}}),
         "algorithm.policies.auto_search.algo_configs: must be a list, not a string 'tpe'",
         covers=(SEARCH("algo_configs"),)),
    Case("args-algo-config-name-not-string", alg("policies", {"auto_search": {"algo_configs": [{"name": 5}]}}),
         'algorithm.policies.auto_search.algo_configs[0].name: must be a string, not a number 5',
         covers=(SEARCH("algo_configs", 0, "name"),)),
    Case("args-algo-config-params-not-list", alg("policies", {"auto_search": {"algo_configs": [{"params": "x"}]}}),
         "algorithm.policies.auto_search.algo_configs[0].params: must be a list, not a string 'x'", covers=(SEARCH("algo_configs", 0, "params"),)),
    Case("args-algo-param-key-not-string",
         alg("policies", {"auto_search": {"algo_configs": [{"params": [{"key": 5}]}]}}),
         'algorithm.policies.auto_search.algo_configs[0].params[0].key: must be a string, not a number 5',
         covers=(SEARCH("algo_configs", 0, "params", 0, "key"),)),
    Case("args-algo-param-value-list",
         alg("policies", {"auto_search": {"algo_configs": [{"params": [{"value": [5]}]}]}}),
         'algorithm.policies.auto_search.algo_configs[0].params[0].value: must be a string, not a list',
         covers=(SEARCH("algo_configs", 0, "params", 0, "value"),)),
    Case("args-algo-param-type-not-string",
         alg("policies", {"auto_search": {"algo_configs": [{"params": [{"type": 5}]}]}}),
         'algorithm.policies.auto_search.algo_configs[0].params[0].type: must be a string, not a number 5',
         covers=(SEARCH("algo_configs", 0, "params", 0, "type"),)),
]
