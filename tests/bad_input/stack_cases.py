"""Bad stack configs (the modelarts-jobs:* sections and the modelarts:* provider settings), each with
the exact message `pulumi preview` must refuse it with (the text after `error: `)."""

from __future__ import annotations

from tests.bad_input.mutations import (DELETE, JOBS, NO_ALGORITHM, OBS_KEY, POOLS_KEY, SWEEPS, Case, Mutation, both,
                                       job_field as a, obs_field, pool_field, put, setting, with_sweep)
from testkit.faults import PROJECT, job, sweep


def cfg(text: str) -> str:
    """A refusal of the modelarts-jobs:* sections."""
    return f"invalid stack config: {PROJECT}:{text}"


IMAGE = "swr.cn-north-4.myhuaweicloud.com/team/img:1"
OWN_CODE_OFF = both(a("codeDir", DELETE), a("bootFile", DELETE))
LOCAL_CODE = OWN_CODE_OFF + a("code", {"localDir": ".", "bootFile": "__main__.py"})
IAM_ONLY = both(setting("accessKey", DELETE), setting("secretKey", DELETE))

BUDGET = f"{PROJECT}:budget"
PRICES = f"{PROJECT}:prices"
PRICED = "modelarts.p3.large.public"

STACK_CASES: list[Case] = [
    # --- the cost keys (docs/cost.md) ---
    Case("budget-not-a-map", put((BUDGET,), [100]), cfg("budget: must be a map, not a list")),
    Case("budget-max-zero", put((BUDGET, "max"), 0), cfg("budget.max: must be greater than 0, not 0")),
    Case("budget-currency-lowercase", put((BUDGET,), {"max": 1, "currency": "cny"}),
         cfg("budget.currency: must be a currency code of three capital letters, e.g. CNY or EUR, not 'cny'"),
         covers=((BUDGET, "currency"),)),
    Case("budget-pool-hours-negative", put((BUDGET,), {"max": 1, "poolHours": -1}),
         cfg("budget.poolHours: must be greater than 0, not -1"), covers=((BUDGET, "poolHours"),)),
    Case("sweep-budget-not-a-map", with_sweep(budget=5), cfg("sweeps.s.budget: must be a map, not a whole number 5")),
    Case("sweep-budget-max-negative", with_sweep(budget={"max": -5}),
         cfg("sweeps.s.budget.max: must be greater than 0, not -5"), covers=((SWEEPS, "s", "budget", "max"),)),
    Case("sweep-budget-currency", with_sweep(budget={"max": 5, "currency": "RMB1"}),
         cfg("sweeps.s.budget.currency: must be a currency code of three capital letters, e.g. CNY or EUR, not "
             "'RMB1'"), covers=((SWEEPS, "s", "budget", "currency"),)),
    Case("prices-not-a-map", put((PRICES,), [1]), cfg("prices: must be a map, not a list")),
    Case("price-negative", put((PRICES, PRICED), {"perNodeHour": -1}),
         cfg(f"prices.{PRICED}.perNodeHour: must be at least 0, not -1"), covers=((PRICES, PRICED, "perNodeHour"),)),
    Case("price-currency-word", put((PRICES, PRICED), {"perNodeHour": 1, "currency": "euro"}),
         cfg(f"prices.{PRICED}.currency: must be a currency code of three capital letters, e.g. CNY or EUR, not "
             "'euro'"), covers=((PRICES, PRICED, "currency"),)),
    # --- required fields ---
    Case("job-pool-missing", a("pool", DELETE),
         cfg('jobs.a.pool: is required')),
    Case("no-algorithm", NO_ALGORITHM,
         cfg('jobs.a: set exactly one algorithm form: algorithmId, subscription, codeDir + bootFile + engine, '
             'code + engine, or image + command; found: none'), covers=()),
    Case("codedir-without-bootfile", a("bootFile", DELETE),
         cfg('jobs.a.bootFile: codeDir and bootFile go together: bootFile is the script inside codeDir')),
    Case("subscription-missing-version", NO_ALGORITHM + a("subscription", {"id": "sub-1"}),
         cfg('jobs.a.subscription.versionId: is required'),
         covers=((JOBS, "a", "subscription", "versionId"),)),
    Case("subscription-missing-id", NO_ALGORITHM + a("subscription", {"versionId": "v1"}),
         cfg('jobs.a.subscription.id: is required'),
         covers=((JOBS, "a", "subscription", "id"),)),
    Case("volume-missing-server", a("volumes", [{"localPath": "/mnt/nfs"}]),
         cfg('jobs.a.volumes[0].nfsServerPath: is required'),
         covers=((JOBS, "a", "volumes", 0, "nfsServerPath"),)),
    Case("volume-missing-local-path", a("volumes", [{"nfsServerPath": "10.0.0.1:/data"}]),
         cfg('jobs.a.volumes[0].localPath: is required'),
         covers=((JOBS, "a", "volumes", 0, "localPath"),)),
    Case("dataset-missing-version", a("inputs", {"data_url": {"dataset": {"id": "ds1"}}}),
         cfg('jobs.a.inputs.data_url.dataset.versionId: is required'),
         covers=((JOBS, "a", "inputs", "data_url", "dataset", "versionId"),)),
    Case("dataset-missing-id", a("inputs", {"data_url": {"dataset": {"versionId": "v1"}}}),
         cfg('jobs.a.inputs.data_url.dataset.id: is required'),
         covers=((JOBS, "a", "inputs", "data_url", "dataset", "id"),)),
    Case("obs-bucket-missing", obs_field("bucket", DELETE),
         cfg('obs.main.bucket: is required')),
    Case("pool-without-flavor-or-id", put((POOLS_KEY, "gpu"), {"maxNodes": 2}),
         cfg('pools.gpu.flavor: set flavor (public pool) and/or poolId (dedicated pool), or create: (flavor, nodes, '
             'network) (a pool the stack creates)'),
         covers=((POOLS_KEY, "gpu", "flavor"),)),
    # --- wrong types ---
    Case("nodes-not-int", a("nodes", "two"),
         cfg("jobs.a.nodes: must be a whole number, not a string 'two'")),
    Case("nodes-float", a("nodes", 1.5),
         cfg('jobs.a.nodes: must be a whole number, not a number 1.5')),
    Case("parameters-list-value", a("parameters", {"lr": [1, 2]}),
         cfg('jobs.a.parameters.lr: must be a string, number or boolean, not a list')),
    Case("environments-map-value", a("environments", {"X": {"y": 1}}),
         cfg('jobs.a.environments.X: must be a string, number or boolean, not a map')),
    Case("logs-not-bool", a("logs", "sometimes"),
         cfg("jobs.a.logs: must be a boolean (true or false), not a string 'sometimes'")),
    Case("jobs-not-a-map", put((JOBS,), "mnist"),
         cfg("jobs: must be a map, not a string 'mnist'")),
    Case("pools-is-list", put((POOLS_KEY,), ["gpu"]),
         cfg('pools: must be a map, not a list')),
    Case("obs-is-list", put((OBS_KEY,), ["main"]),
         cfg('obs: must be a map, not a list')),
    Case("sweeps-not-a-map", put((SWEEPS,), "lr-sweep"),
         cfg("sweeps: must be a map, not a string 'lr-sweep'")),
    Case("volumes-not-a-list", a("volumes", {"nfsServerPath": "10.0.0.1:/data", "localPath": "/mnt/nfs"}),
         cfg('jobs.a.volumes: must be a list, not a map')),
    Case("job-entry-is-string", put((JOBS, "a"), "gpu"),
         cfg("jobs.a: must be a map, not a string 'gpu'")),
    Case("tag-key-with-slash", a("tags", {"team/x": "ml"}),
         cfg("jobs.a.tags: 'team/x' is not a valid tag key: 1-128 letters, digits, spaces and _ . : = + - @, no "
             "space at either end, not starting with _sys_")),
    Case("default-tags-owner-prefix", put((f"{PROJECT}:defaultTags",), {"modelarts-pulumi.token": "x"}),
         cfg("defaultTags: modelarts-pulumi.token: keys starting with modelarts-pulumi. are the owner mark this "
             "tool writes itself; use another prefix"),
         covers=((f"{PROJECT}:defaultTags",),)),
    Case("annotations-non-string", a("annotations", {"team": {"x": 1}}),
         cfg('jobs.a.annotations.team: must be a string, not a map')),
    Case("maxnodes-not-int", pool_field("maxNodes", "many"),
         cfg("pools.gpu.maxNodes: must be a whole number, not a string 'many'")),
    Case("pool-flavor-not-string", pool_field("flavor", 5),
         cfg('pools.gpu.flavor: must be a string, not a whole number 5')),
    Case("pool-id-not-string", pool_field("poolId", ["p1"]),
         cfg('pools.gpu.poolId: must be a string, not a list')),
    Case("delete-before-replace-not-bool", a("deleteBeforeReplace", "perhaps"),
         cfg("jobs.a.deleteBeforeReplace: must be a boolean (true or false), not a string 'perhaps'")),
    Case("keep-finished-runs-not-bool", a("keepFinishedRuns", "yes please"),
         cfg("jobs.a.keepFinishedRuns: must be a boolean (true or false), not a string 'yes please'")),
    Case("keep-finished-runs-with-a-name", a("keepFinishedRuns", True),
         cfg("jobs.a.keepFinishedRuns: needs a derived name (leave name unset): a kept run keeps its name, which its "
             "successor could then not use")),
    Case("output-per-run-with-a-name", a("outputPerRun", True),
         cfg("jobs.a.outputPerRun: needs a derived name (leave name unset): the run's folder is named after the "
             "derived job name, renewed with each run")),
    Case("keep-runs-zero", a("keepRuns", 0), cfg("jobs.a.keepRuns: must be at least 1, not 0")),
    Case("stack-keep-runs-not-number", put((f"{PROJECT}:keepRuns",), "many"),
         cfg("keepRuns: must be a whole number, not a string 'many'")),
    Case("replace-failed-not-bool", a("replaceFailed", "perhaps"),
         cfg("jobs.a.replaceFailed: must be a boolean (true or false), not a string 'perhaps'")),
    Case("accept-failed-not-bool", a("acceptFailed", "perhaps"),
         cfg("jobs.a.acceptFailed: must be a boolean (true or false), not a string 'perhaps'")),
    Case("obs-create-not-bool", obs_field("create", "perhaps"),
         cfg("obs.main.create: must be a boolean (true or false), not a string 'perhaps'")),
    Case("obs-force-destroy-not-bool", obs_field("forceDestroy", "perhaps"),
         cfg("obs.main.forceDestroy: must be a boolean (true or false), not a string 'perhaps'")),
    Case("volume-read-only-not-bool", a("volumes", [{"nfsServerPath": "10.0.0.1:/data", "localPath": "/mnt/nfs",
                                                    "readOnly": "perhaps"}]),
         cfg("jobs.a.volumes[0].readOnly: must be a boolean (true or false), not a string 'perhaps'"),
         covers=((JOBS, "a", "volumes", 0, "readOnly"),)),
    Case("subscription-not-a-map", NO_ALGORITHM + a("subscription", "sub-1"),
         cfg("jobs.a.subscription: must be a map, not a string 'sub-1'"),
         covers=((JOBS, "a", "subscription"),)),
    Case("input-dataset-not-a-map", a("inputs", {"data_url": {"dataset": "ds1"}}),
         cfg("jobs.a.inputs.data_url.dataset: must be a map, not a string 'ds1'"),
         covers=((JOBS, "a", "inputs", "data_url", "dataset"),)),
    Case("engine-id-not-string", a("engine", {"id": 5}),
         cfg('jobs.a.engine.id: must be a string, not a whole number 5'), covers=((JOBS, "a", "engine", "id"),)),
    Case("working-dir-not-string", a("workingDir", 5),
         cfg('jobs.a.workingDir: must be a string, not a whole number 5')),
    Case("algorithm-id-not-string", NO_ALGORITHM + a("algorithmId", ["a1"]),
         cfg('jobs.a.algorithmId: must be a string, not a list'),
         covers=((JOBS, "a", "algorithmId"),)),
    Case("code-excludes-not-list", LOCAL_CODE + a("code", {"localDir": ".", "bootFile": "__main__.py",
                                                           "excludes": "*.pyc"}),
         cfg("jobs.a.code.excludes: must be a list, not a string '*.pyc'"),
         covers=((JOBS, "a", "code", "excludes"),)),
    # --- out-of-range numbers ---
    Case("nodes-zero", a("nodes", 0),
         cfg('jobs.a.nodes: must be at least 1, not 0')),
    Case("nodes-over-pool-limit", a("nodes", 5),
         cfg("jobs.a.nodes: 5 exceeds pool 'gpu' maxNodes 4")),
    Case("nodes-huge", a("nodes", 100000),
         cfg('jobs.a.nodes: must be at most 1024, not 100000')),
    Case("maxnodes-zero", pool_field("maxNodes", 0),
         cfg('pools.gpu.maxNodes: must be at least 1, not 0')),
    Case("wait-timeout-negative", a("waitTimeoutSeconds", -1),
         cfg('jobs.a.waitTimeoutSeconds: must be greater than 0, not -1')),
    Case("poll-interval-zero", a("pollIntervalSeconds", 0),
         cfg('jobs.a.pollIntervalSeconds: must be at least 0.05, not 0')),
    Case("delete-timeout-zero", a("deleteTimeoutSeconds", 0),
         cfg('jobs.a.deleteTimeoutSeconds: must be greater than 0, not 0')),
    Case("auto-stop-zero", a("autoStopHours", 0),
         cfg('jobs.a.autoStopHours: must be at least 1, not 0')),
    Case("workspace-not-a-string", a("workspaceId", 7),
         cfg('jobs.a.workspaceId: must be a string, not a whole number 7')),
    Case("description-too-long", a("description", "d" * 300),
         cfg('jobs.a.description: must be at most 256 characters (got 300)')),
    # --- bad names and keys ---
    Case("name-with-space", a("name", "bad name"),
         cfg("jobs.a.name: 'bad name' is not a valid job name: 1-64 characters of letters, digits, underscores "
             'and hyphens')),
    Case("name-too-long", a("name", "n" * 65),
         cfg(f"jobs.a.name: '{'n' * 56}... is not a valid job name: "  # long values are cut at 60 characters
             "1-64 characters of letters, digits, underscores and hyphens")),
    Case("name-trailing-newline", a("name", "job-a\n"),
         cfg("jobs.a.name: 'job-a\\n' is not a valid job name: 1-64 characters of letters, digits, underscores "
             'and hyphens')),
    Case("name-with-slash", a("name", "team/job"),
         cfg("jobs.a.name: 'team/job' is not a valid job name: 1-64 characters of letters, digits, underscores "
             'and hyphens')),
    Case("job-key-bad-chars", put((JOBS, "a b!"), job(name="bad-key")),
         cfg("jobs.a b!: 'a b!' is not a valid key: 1-40 characters: letters, digits, '_' and '-'; starts with "
             'a letter or digit')),
    Case("pool-key-bad-chars", both(put((POOLS_KEY, "g p"), {"flavor": "x"}), a("pool", "g p")),
         cfg("pools.g p: 'g p' is not a valid key: 1-40 characters: letters, digits, '_' and '-'; starts with "
             "a letter or digit"),
         covers=((POOLS_KEY, "g p"),)),
    Case("unknown-job-field", a("flavour", "x"),  # nothing close: the allowed keys
         # the entry's own keys, then those the job arguments declare (stack/job_fields.with_declared)
         cfg('jobs.a.flavour: unknown key (allowed: pool, obs, name, subscription, codeDir, bootFile, code, engine, '
             'image, parameters, inputs, outputs, environments, logs, autoStopHours, volumes, annotations, tags, '
             'movedFrom, objective, metrics, retries, search, acceptFailed, description, workspaceId, algorithmId, '
             'command, '
             'localCodeDir, workingDir, nodes, waitFor, waitTimeoutSeconds, pollIntervalSeconds, deleteTimeoutSeconds, '
             'deleteBeforeReplace, outputPerRun, keepFinishedRuns, keepRuns, replaceFailed, adoptJobId)'),
         covers=()),
    Case("moved-from-a-declared-key", both(a("movedFrom", ["b"]), put((JOBS, "b"), job(name="bad-input-b"))),
         cfg("jobs.a.movedFrom: b is still declared: a job moves from a key that is no longer in jobs or sweeps"),
         covers=((JOBS, "a", "movedFrom"), (JOBS, "b"))),
    Case("moved-from-bad-key", a("movedFrom", ["no way"]),
         cfg("jobs.a.movedFrom[0]: 'no way' is not a valid key: 1-40 characters: letters, digits, '_' and '-'; "
             "starts with a letter or digit")),
    Case("wait-for-lowercase", a("waitfor", "completed"),
         cfg('jobs.a.waitfor: unknown key (did you mean waitFor?)'), covers=()),
    Case("misspelt-boot-file", both(a("bootFile", DELETE), a("bootfile", "train.py")),
         cfg('jobs.a.bootfile: unknown key (did you mean bootFile?)'), covers=()),
    Case("unknown-section", put((f"{PROJECT}:job",), {"a": job(name="x")}),
         'invalid stack config: unknown key modelarts-jobs:job (did you mean modelarts-jobs:jobs?)', covers=()),
    Case("unknown-section-far", put((f"{PROJECT}:tasks",), {"a": job(name="x")}),
         ('invalid stack config: unknown key modelarts-jobs:tasks (allowed: modelarts-jobs:obs, '
         'modelarts-jobs:networks, modelarts-jobs:pools, modelarts-jobs:jobs, modelarts-jobs:sweeps, modelarts-jobs:defaultTags, '
          'modelarts-jobs:keepRuns, modelarts-jobs:prices, modelarts-jobs:budget)'), covers=()),
    Case("wait-for-not-a-choice", a("waitFor", "finished"),
         cfg("jobs.a.waitFor: must be one of none, created, running or completed, not 'finished'")),
    Case("env-name-invalid", a("environments", {"1BAD NAME": "x"}),
         cfg("jobs.a.environments.1BAD NAME: '1BAD NAME' is not a valid environment variable name: letters, "
             "digits, '_', '.' and '-'; starts with a letter or '_'")),
    # --- bad OBS paths ---
    Case("bucket-uppercase", obs_field("bucket", "My_Bucket"),
         cfg("obs.main.bucket: 'My_Bucket' is not a valid bucket name: 3-63 characters: lowercase letters, "
             'digits, dots, hyphens; starts and ends with a letter or digit')),
    Case("bucket-too-short", obs_field("bucket", "ab"),
         cfg("obs.main.bucket: 'ab' is not a valid bucket name: 3-63 characters: lowercase letters, digits, "
             'dots, hyphens; starts and ends with a letter or digit')),
    Case("obs-prefix-absolute", obs_field("data", "/abs/data/"),
         cfg("obs.main.data: must be a relative prefix inside the bucket, e.g. data/, not '/abs/data/'")),
    Case("obs-prefix-url", obs_field("code", "obs://other/code/"),
         cfg("obs.main.code: must be a relative prefix inside the bucket, e.g. data/, not 'obs://other/code/'")),
    Case("obs-outputs-with-space", obs_field("outputs", "my outputs/"),
         cfg("obs.main.outputs: must be a relative prefix inside the bucket, e.g. data/, not 'my outputs/'")),
    Case("obs-logs-dot-dot", obs_field("logs", "../logs/"),
         cfg("obs.main.logs: '../logs/' must not contain '..' or '//' inside the path")),
    Case("input-s3-url", a("inputs", {"data_url": "s3://bucket/data/"}),
         cfg("jobs.a.inputs.data_url: 's3://bucket/data/' is not an OBS path: use a path relative to the OBS "
             'location (e.g. data/mnist/) or obs://bucket/path')),
    Case("output-other-scheme", a("outputs", {"train_url": "https://example.com/out/"}),
         cfg("jobs.a.outputs.train_url: 'https://example.com/out/' is not an OBS path: use a path relative to the "
             "OBS location (e.g. data/mnist/) or obs://bucket/path")),
    Case("code-dir-bad-url", a("codeDir", "obs:/bucket/code"),
         cfg("jobs.a.codeDir: 'obs:/bucket/code' is not an OBS path: use a path relative to the OBS location "
             '(e.g. data/mnist/) or obs://bucket/path')),
    Case("boot-file-other-scheme", a("bootFile", "https://example.com/train.py"),
         cfg("jobs.a.bootFile: 'https://example.com/train.py' is not an OBS path: use a path relative to the "
             'OBS location (e.g. data/mnist/) or obs://bucket/path')),
    Case("log-export-no-obs", both(put((OBS_KEY,), DELETE), a("codeDir", "obs://emulator-bucket/code/"),
                                   a("bootFile", "obs://emulator-bucket/code/train.py")),
         cfg("jobs.a.obs: outputs.train_url, logs need an OBS location: define one in modelarts-jobs:obs "
             "(logs: false and absolute paths need none)"),
         covers=((JOBS, "a", "obs"),)),
    # passed preview and failed at up before (issue 15.7), or were silently sent (issue 13.3)
    Case("boot-file-outside-code-dir", a("bootFile", "obs://emulator-bucket/elsewhere/train.py"),
         cfg("jobs.a.bootFile: must be inside codeDir 'obs://emulator-bucket/code/mnist/' (the service "
             "requires it), not 'obs://emulator-bucket/elsewhere/train.py'")),
    Case("code-dir-dot-dot", a("codeDir", "../../etc/"),
         cfg("jobs.a.codeDir: '../../etc/' must not contain '..' or '//' inside the path")),
    Case("input-double-slash", a("inputs", {"data_url": "mnist//train/"}),
         cfg("jobs.a.inputs.data_url: 'mnist//train/' must not contain '..' or '//' inside the path")),
    Case("input-control-character", a("inputs", {"data_url": "mnist/\x07train/"}),
         cfg("jobs.a.inputs.data_url: 'mnist/\\x07train/' must not contain control characters")),
    Case("local-code-dir-outside-home", a("localCodeDir", "/tmp/code"),
         cfg("jobs.a.localCodeDir: must be a directory under /home (API rule), not '/tmp/code'")),
    Case("sweep-bool-and-its-string", with_sweep(grid={"flag": [True, "true"]}),
         cfg('sweeps.s.grid.flag: values must be distinct (as the parameter strings they become: true, true)')),
    Case("region-underscore", setting("region", "eu_de"),
         "modelarts:region: invalid region 'eu_de' (expected e.g. cn-north-4 or eu-de)"),
    # --- code from a local directory ---
    Case("code-local-dir-missing", LOCAL_CODE + a("code", {"localDir": "no-such-dir", "bootFile": "train.py"}),
         cfg("jobs.a.code.localDir: 'no-such-dir' does not exist (expected a directory with the training code, "
             'relative to the Pulumi project or absolute)'),
         covers=((JOBS, "a", "code", "localDir"),)),
    Case("code-boot-file-missing", LOCAL_CODE + a("code", {"localDir": ".", "bootFile": "no_such_train.py"}),
         cfg("jobs.a.code.bootFile: 'no_such_train.py' is not in '.' (expected a .py file relative to "
             'code.localDir, e.g. train.py; excluded files do not count)'),
         covers=((JOBS, "a", "code", "bootFile"),)),
    Case("code-and-code-dir", a("code", {"localDir": ".", "bootFile": "__main__.py"}),
         cfg('jobs.a.code: code (a local directory) and codeDir, bootFile are exclusive: one algorithm form '
             'per job')),
    # --- conflicting algorithm forms ---
    Case("algorithm-id-and-code", a("algorithmId", "8d1b2f4c-5a6e-4f70-9b81-c2d3e4f5a6b7"),
         cfg('jobs.a: set exactly one algorithm form: algorithmId, subscription, codeDir + bootFile + engine, '
             'code + engine, or image + command; found: algorithmId, codeDir + bootFile'), covers=()),
    # engine (preset) and image (custom) both given: one silently won before; refused since
    Case("image-and-engine", both(a("image", IMAGE), a("command", "python train.py")),
         cfg('jobs.a.image: image and engine are exclusive: image + command for a custom image, or engine (+ '
             'codeDir and bootFile) for a preset engine'),
         covers=((JOBS, "a", "image"),)),
    Case("engine-name-without-version", a("engine", {"name": "PyTorch"}),
         cfg('jobs.a.engine.version: name and version go together, e.g. name: PyTorch, version: '
             'pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64'),
         covers=((JOBS, "a", "engine", "name"),)),
    Case("engine-version-without-name", a("engine", {"version": "pytorch_1.8.0"}),
         cfg('jobs.a.engine.name: name and version go together, e.g. name: PyTorch, version: '
             'pytorch_1.8.0-cuda_10.2-py_3.7-ubuntu_18.04-x86_64'),
         covers=((JOBS, "a", "engine", "version"),)),
    Case("engine-image-and-name", a("engine", {"image": IMAGE, "name": "PyTorch", "version": "1.8"}),
         cfg('jobs.a.engine: set exactly one of id, name + version, or image'),
         covers=((JOBS, "a", "engine", "image"),)),
    Case("engine-missing-for-code", a("engine", DELETE),
         cfg('jobs.a.engine: codeDir + bootFile need an engine: name + version, id, or image')),
    Case("subscription-and-algorithm-id", NO_ALGORITHM + a("subscription", {"id": "s", "versionId": "v"})
         + a("algorithmId", "abc"),
         cfg('jobs.a: set exactly one algorithm form: algorithmId, subscription, codeDir + bootFile + engine, '
             'code + engine, or image + command; found: algorithmId, subscription'), covers=((JOBS, "a", "subscription"),)),
    Case("image-without-command", NO_ALGORITHM + a("image", IMAGE),
         cfg('jobs.a.command: is required with a custom image: the command that starts the training'), covers=((JOBS, "a", "command"),)),
    # --- unknown references ---
    Case("unknown-pool", a("pool", "tpu"),
         cfg("jobs.a.pool: unknown pool 'tpu' (known: gpu)")),
    Case("unknown-obs-location", a("obs", "archive"),
         cfg("jobs.a.obs: unknown OBS location 'archive' (known: main)")),
    Case("no-pools-defined", put((POOLS_KEY,), DELETE),
         cfg("jobs.a.pool: unknown pool 'gpu' (known: none defined in modelarts-jobs:pools)"), covers=((JOBS, "a", "pool"),)),
    # --- malformed sweeps ---
    Case("sweep-empty-grid", with_sweep(grid={}),
         cfg('sweeps.s.grid: needs at least one parameter with a list of values')),
    Case("sweep-empty-values", with_sweep(grid={"lr": []}),
         cfg("sweeps.s.grid.lr: must not be empty")),
    Case("sweep-duplicate-values", with_sweep(grid={"lr": [0.1, 0.1]}),
         cfg('sweeps.s.grid.lr: values must be distinct (as the parameter strings they become: 0.1, 0.1)')),
    Case("sweep-too-many-points", with_sweep(grid={"lr": list(range(30)), "bs": list(range(20))}),
         cfg('sweeps.s.grid: expands to 600 jobs, more than maxJobs (500)')),
    Case("sweep-with-name", with_sweep(name="fixed"),
         cfg('sweeps.s.name: is not allowed in a sweep: job names are derived from the grid point')),
    Case("sweep-adopt", with_sweep(adoptJobId="abc"),
         cfg('sweeps.s.adoptJobId: is not allowed in a sweep')),
    Case("sweep-moved-from", with_sweep(movedFrom=["old"]),
         cfg("sweeps.s.movedFrom: is not allowed in a sweep: a sweep's points are keyed by their grid values")),
    Case("sweep-grid-and-parameter", with_sweep(parameters={"lr": 0.5}),
         cfg('sweeps.s.grid.lr: is also a fixed parameter; remove it from parameters'), covers=((SWEEPS, "s", "grid"),)),
    Case("sweep-same-key-as-job", put((SWEEPS, "a"), sweep({"lr": [1]})),
         cfg('sweeps.a: a sweep cannot have the same key as a job'), covers=((SWEEPS, "a"),)),
    Case("sweep-grid-missing", with_sweep(grid=DELETE),
         cfg('sweeps.s.grid: is required')),
    Case("sweep-grid-scalar", with_sweep(grid={"lr": 0.1}),
         cfg('sweeps.s.grid.lr: must be a list, not a number 0.1')),
    Case("sweep-max-jobs-zero", with_sweep(maxJobs=0),
         cfg('sweeps.s.maxJobs: must be at least 1, not 0')),
    Case("sweep-unknown-pool", with_sweep(pool="tpu"),
         cfg("sweeps.s.pool: unknown pool 'tpu' (known: gpu)")),
    # --- provider settings and credentials ---
    Case("no-credentials", IAM_ONLY,
         ('no credentials: set modelarts:accessKey (or HW_ACCESS_KEY / OS_ACCESS_KEY) and '
         'modelarts:secretKey (or HW_SECRET_KEY / OS_SECRET_KEY), or modelarts:iamUser, iamPassword and '
         'iamDomain (or HW_USER_NAME / HW_PASSWORD / HW_DOMAIN_NAME)'), covers=(("modelarts:accessKey",),)),
    Case("access-key-without-secret", setting("secretKey", DELETE),
         'modelarts:secretKey (or HW_SECRET_KEY / OS_SECRET_KEY) is required with modelarts:accessKey'),
    Case("secret-without-access-key", setting("accessKey", DELETE),
         'modelarts:accessKey (or HW_ACCESS_KEY / OS_ACCESS_KEY) is required with modelarts:secretKey'),
    Case("region-missing", setting("region", DELETE),
         'missing provider setting modelarts:region (or HW_REGION_NAME / OS_REGION_NAME)'),
    Case("project-id-missing", setting("projectId", DELETE),
         'missing provider setting modelarts:projectId (or HW_PROJECT_ID / OS_PROJECT_ID)'),
    Case("provider-key-typo", setting("secretkey", "x"),
         'unknown provider setting modelarts:secretkey (did you mean modelarts:secretKey?)', covers=()),
    Case("provider-key-region-typo", setting("regoin", "cn-north-4"),
         'unknown provider setting modelarts:regoin (did you mean modelarts:region?)', covers=()),
    Case("provider-key-unknown", setting("zone", "az1"),
         ('unknown provider setting modelarts:zone (allowed: modelarts:region, modelarts:projectId, modelarts:cloud, '
          'modelarts:endpoint, modelarts:obsEndpoint, modelarts:iamEndpoint, modelarts:billingEndpoint, '
          'modelarts:accessKey, '
          'modelarts:secretKey, modelarts:securityToken, modelarts:iamUser, modelarts:iamPassword, '
          'modelarts:iamDomain, modelarts:projectName, modelarts:verifyTls, modelarts:caBundle, '
          'modelarts:retryTimeoutSeconds)'), covers=()),
    Case("endpoint-not-http", setting("endpoint", "ftp://127.0.0.1:1"),
         "modelarts:endpoint must be an http(s) URL, e.g. https://host:443, not 'ftp://127.0.0.1:1'"),
    Case("obs-endpoint-not-http", setting("obsEndpoint", "127.0.0.1:8781"),
         "modelarts:obsEndpoint must be an http(s) URL, e.g. https://host:443, not '127.0.0.1:8781'"),
    Case("billing-endpoint-not-http", setting("billingEndpoint", "bss.example.com"),
         "modelarts:billingEndpoint must be an http(s) URL, e.g. https://host:443, not 'bss.example.com'"),
    Case("iam-endpoint-not-http", setting("iamEndpoint", "iam.example.com"),
         "modelarts:iamEndpoint must be an http(s) URL, e.g. https://host:443, not 'iam.example.com'"),
    Case("verify-tls-not-bool", setting("verifyTls", "maybe"),
         "modelarts:verifyTls must be true or false, not 'maybe'"),
    Case("retry-timeout-not-a-number", setting("retryTimeoutSeconds", "soon"),
         "modelarts:retryTimeoutSeconds must be a number of seconds above 0 and at most 3600, not 'soon'"),
    Case("retry-timeout-zero", setting("retryTimeoutSeconds", 0),
         "modelarts:retryTimeoutSeconds must be a number of seconds above 0 and at most 3600, not '0'"),
    Case("ca-bundle-missing-file", setting("caBundle", "/no/such/ca.pem"),
         "modelarts:caBundle '/no/such/ca.pem' is not a readable file (a PEM bundle of CA certificates)"),
    Case("cloud-unknown", setting("cloud", "aws"),
         "modelarts:cloud must be huaweicloud or otc, not 'aws'"),
    Case("iam-user-without-password", IAM_ONLY + setting("iamUser", "u"),
         ('IAM password auth needs modelarts:iamPassword (or HW_PASSWORD / OS_PASSWORD), '
         'modelarts:iamDomain (or HW_DOMAIN_NAME / OS_DOMAIN_NAME / OS_USER_DOMAIN_NAME)'),
         covers=(("modelarts:iamPassword",),)),
    Case("iam-password-without-user", IAM_ONLY + setting("iamPassword", "p") + setting("iamDomain", "d"),
         'IAM password auth needs modelarts:iamUser (or HW_USER_NAME / OS_USERNAME)',
         covers=(("modelarts:iamUser",),)),
    Case("iam-without-domain", IAM_ONLY + setting("iamUser", "u") + setting("iamPassword", "p"),
         ('IAM password auth needs modelarts:iamDomain (or HW_DOMAIN_NAME / OS_DOMAIN_NAME / '
         'OS_USER_DOMAIN_NAME)'),
         covers=(("modelarts:iamDomain",),)),
    Case("security-token-with-iam-password", IAM_ONLY + setting("iamUser", "u") + setting("iamPassword", "p")
         + setting("iamDomain", "d") + setting("securityToken", "t"),
         'modelarts:securityToken only applies to accessKey/secretKey auth',
         covers=(("modelarts:securityToken",),)),
    Case("project-name-other-region", setting("projectName", "eu-de"),
         ("modelarts:projectName 'eu-de' is not a project of region 'cn-north-4': use cn-north-4 or a "
         'subproject cn-north-4_<name>')),
    # --- objectives, retries, maxFailures (issue 23) ---
    Case("objective-regex-does-not-compile",
         a("waitFor", "completed") + a("objective", {"name": "acc", "regex": "acc=([0-9.]+"}),
         cfg("jobs.a.objective.regex: 'acc=([0-9.]+' is not a regular expression RE2 accepts: a '(' is never closed: add its "
             "')' or write \\( for a literal parenthesis"),
         covers=((JOBS, "a", "objective", "regex"),)),
    Case("objective-regex-could-backtrack",
         a("waitFor", "completed") + a("objective", {"name": "acc", "regex": r"(acc)=\1([0-9.]+)"}),
         cfg(r"jobs.a.objective.regex: '(acc)=\1([0-9.]+)' is not a regular expression RE2 accepts: \1 (a backreference) is not "
             "supported: RE2 matches in linear time without them"),
         covers=((JOBS, "a", "objective", "regex"),)),
    Case("objective-regex-without-group",
         a("waitFor", "completed") + a("objective", {"name": "acc", "regex": "acc=[0-9.]+"}),
         cfg("jobs.a.objective.regex: 'acc=[0-9.]+' needs exactly one group around the number, e.g. accuracy=([0-9.]+); "
             "it has 0"), covers=((JOBS, "a", "objective", "regex"),)),
    Case("objective-name-missing", a("waitFor", "completed") + a("objective", {"regex": "acc=([0-9.]+)"}),
         cfg("jobs.a.objective.name: is required"), covers=((JOBS, "a", "objective", "name"),)),
    Case("objective-goal-unknown",
         a("waitFor", "completed") + a("objective", {"name": "acc", "regex": "acc=([0-9.]+)", "goal": "up"}),
         cfg("jobs.a.objective.goal: must be max or min, not 'up'"), covers=((JOBS, "a", "objective", "goal"),)),
    Case("objective-without-waiting-for-completion", a("objective", {"name": "acc", "regex": "acc=([0-9.]+)"}),
         cfg("jobs.a.objective: needs waitFor: completed (it is read from the log of a completed job), "
             "not waitFor: created"), covers=((JOBS, "a", "objective"),)),
    # --- metrics (issue 41) ---
    Case("metric-regex-with-two-number-groups",
         a("waitFor", "completed") + a("metrics", [{"name": "loss", "regex": r"epoch ([0-9]+) loss=([0-9.]+)"}]),
         cfg("jobs.a.metrics[0].regex: needs exactly one group around the number (besides a step or epoch group), "
             "e.g. loss=([0-9.]+); it has 2"), covers=((JOBS, "a", "metrics", 0, "regex"),)),
    Case("metric-regex-names-another-group",
         a("waitFor", "completed") + a("metrics", [{"name": "loss", "regex": r"(?P<batch>[0-9]+) loss=([0-9.]+)"}]),
         cfg("jobs.a.metrics[0].regex: names a group 'batch': a metric's groups are the number (unnamed, or named "
             "value) and optionally a step, named step or epoch"), covers=((JOBS, "a", "metrics", 0, "regex"),)),
    Case("metric-name-missing", a("waitFor", "completed") + a("metrics", [{"regex": "loss=([0-9.]+)"}]),
         cfg("jobs.a.metrics[0].name: is required"), covers=((JOBS, "a", "metrics", 0, "name"),)),
    Case("metric-goal-unknown",
         a("waitFor", "completed") + a("metrics", [{"name": "loss", "regex": "loss=([0-9.]+)", "goal": "down"}]),
         cfg("jobs.a.metrics[0].goal: must be max or min, not 'down'"), covers=((JOBS, "a", "metrics", 0, "goal"),)),
    Case("metrics-without-waiting-for-completion", a("metrics", [{"name": "loss", "regex": "loss=([0-9.]+)"}]),
         cfg("jobs.a.metrics: needs waitFor: completed (they are read from the log while the job runs and once it "
             "completed), not waitFor: created"), covers=((JOBS, "a", "metrics"),)),
    Case("metric-declared-twice",
         a("waitFor", "completed") + a("metrics", [{"name": "loss", "regex": "loss=([0-9.]+)"},
                                                   {"name": "loss", "regex": "val_loss=([0-9.]+)"}]),
         cfg("jobs.a.metrics[1].name: 'loss' is declared twice: each metric has its own name"),
         covers=((JOBS, "a", "metrics", 1, "name"),)),
    Case("retries-above-documented-bound", a("retries", 129),
         cfg("jobs.a.retries: must be at most 128, not 129")),
    Case("retries-and-its-annotation", a("retries", 2) + a("annotations", {"fault-tolerance/job-retry-num": "3"}),
         cfg("jobs.a.retries: sets the annotation fault-tolerance/job-retry-num: set retries or that annotation, "
             "not both"), covers=((JOBS, "a", "retries"),)),
    Case("retries-and-its-annotation-at-the-same-count",  # written both ways: refused even when they agree
         a("retries", 2) + a("annotations", {"fault-tolerance/job-retry-num": "2"}),
         cfg("jobs.a.retries: sets the annotation fault-tolerance/job-retry-num: set retries or that annotation, "
             "not both"), covers=()),
    Case("sweep-max-failures-negative", with_sweep(maxFailures=-1),
         cfg("sweeps.s.maxFailures: must be at least 0, not -1")),
]

# --- networks and pools the stack creates (issue 24) ---
NETWORKS = f"{PROJECT}:networks"
OWN_POOL = (POOLS_KEY, "own")
WITH_NET = put((NETWORKS, "main"), {})


def own_pool(**create: object) -> Mutation:
    return WITH_NET + put(OWN_POOL, {"create": {"flavor": "modelarts.vm.gpu.tnt004", "nodes": 2, "network": "main",
                                                **create}})


STACK_CASES += [
    Case("networks-is-list", put((NETWORKS,), ["main"]), cfg("networks: must be a map, not a list")),
    Case("network-cidr-bad", put((NETWORKS, "main"), {"cidr": "10.0.0.0"}),
         cfg("networks.main.cidr: '10.0.0.0' is not an IPv4 CIDR block, e.g. 192.168.128.0/17"),
         covers=((NETWORKS, "main", "cidr"),)),
    Case("network-force-delete-not-bool", put((NETWORKS, "main"), {"forceDelete": "always"}),
         cfg("networks.main.forceDelete: must be a boolean (true or false), not a string 'always'"),
         covers=((NETWORKS, "main", "forceDelete"),)),
    Case("network-name-bad", put((NETWORKS, "main"), {"name": "Bad_Name"}),
         cfg("networks.main.name: 'Bad_Name' is not a valid network name: 4-32 characters: lowercase letters, digits "
             "and '-'; starts with a letter, ends with a letter or digit"), covers=((NETWORKS, "main", "name"),)),
    Case("network-name-33-chars", put((NETWORKS, "main"), {"name": "n" * 33}),
         cfg(f"networks.main.name: '{'n' * 33}' is not a valid network name: 4-32 characters: lowercase letters, "
             "digits and '-'; starts with a letter, ends with a letter or digit")),
    Case("pool-create-with-flavor", WITH_NET + put((POOLS_KEY, "gpu", "create"),
                                                   {"flavor": "modelarts.vm.gpu.tnt004", "nodes": 2, "network": "main"}),
         cfg("pools.gpu.create: a pool the stack creates takes no flavor or poolId (its jobs run on its nodes)"),
         covers=((POOLS_KEY, "gpu", "create"),)),
    Case("pool-create-description-bad", own_pool(description="GPUs <for> vision"),
         cfg("pools.own.create.description: 'GPUs <for> vision' is not a valid pool description: any text without "
             "the characters ! < > = & \" '"), covers=((*OWN_POOL, "create", "description"),)),
    Case("pool-create-nodes-zero", own_pool(nodes=0), cfg("pools.own.create.nodes: must be at least 1, not 0"), covers=((*OWN_POOL, "create", "nodes"),)),
    Case("pool-create-flavor-missing", own_pool() + put((*OWN_POOL, "create", "flavor"), DELETE), cfg("pools.own.create.flavor: is required"), covers=((*OWN_POOL, "create", "flavor"),)),
    Case("pool-create-network-unknown", own_pool(network="other"),
         cfg("pools.own.create.network: unknown network 'other' (known: main)"),
         covers=((*OWN_POOL, "create", "network"),)),
    Case("pool-create-name-bad", own_pool(name="Bad_Name"),
         cfg("pools.own.create.name: 'Bad_Name' is not a valid pool name: 4-32 characters: lowercase letters, digits "
             "and '-'; starts with a letter, ends with a letter or digit"), covers=((*OWN_POOL, "create", "name"),)),
    Case("pool-create-timeout-zero", own_pool(timeoutSeconds=0),
         cfg("pools.own.create.timeoutSeconds: must be greater than 0, not 0"),
         covers=((*OWN_POOL, "create", "timeoutSeconds"),)),
    Case("pool-create-poll-zero", own_pool(pollIntervalSeconds=0),
         cfg("pools.own.create.pollIntervalSeconds: must be greater than 0, not 0"),
         covers=((*OWN_POOL, "create", "pollIntervalSeconds"),)),
    Case("pool-create-force-delete-not-bool", own_pool(forceDelete="always"),
         cfg("pools.own.create.forceDelete: must be a boolean (true or false), not a string 'always'"),
         covers=((*OWN_POOL, "create", "forceDelete"),)),
]

# --- the service's own hyperparameter search (a job's `search` entry) ---
SEARCH_OK = {"objective": {"name": "acc", "regex": "acc=([0-9.]+)"},
             "space": {"momentum": {"uniform": [0.5, 0.9]}}, "algorithm": {"name": "tpe_search"}}
SEARCH = (JOBS, "a", "search")


def search(*path: object, value: object) -> Mutation:
    """jobs.a.search.<path> = value, on a valid search (setup)."""
    return Mutation((((*SEARCH, *path), value),), setup=((SEARCH, SEARCH_OK),))


def space(**entry: object) -> Mutation:
    return search("space", "momentum", value=entry)


STACK_CASES += [
    Case("search-in-sweep", with_sweep(search=SEARCH_OK),
         cfg("sweeps.s.search: is not allowed in a sweep: declare the service's search on a job (one job runs every trial), or a grid sweep of many jobs")),
    Case("search-and-objective", a("waitFor", "completed") + a("objective", {"name": "a", "regex": "a=(1)"}) + a("search", SEARCH_OK),
         cfg('jobs.a.objective: a job with a search is scored by search.objective: drop objective'),
         covers=((JOBS, "a", "objective"), SEARCH)),
    Case("search-not-a-map", a("search", "tpe"),
         cfg("jobs.a.search: must be a map, not a string 'tpe'")),
    Case("search-budget-not-a-map", search("budget", value=5),
         cfg("jobs.a.search.budget: must be a map, not a whole number 5")),
    Case("search-budget-max-zero", search("budget", value={"max": 0}),
         cfg("jobs.a.search.budget.max: must be greater than 0, not 0"), covers=((*SEARCH, "budget", "max"),)),
    Case("search-objective-missing", search("objective", value=DELETE),
         cfg('jobs.a.search.objective: is required')),
    Case("search-objective-name-empty", search("objective", "name", value=""),
         cfg('jobs.a.search.objective.name: must not be empty')),
    Case("search-regex-without-group", search("objective", "regex", value="acc=[0-9.]+"),
         cfg("jobs.a.search.objective.regex: 'acc=[0-9.]+' needs exactly one group around the number, e.g. "
             "accuracy=([0-9.]+); it has 0")),
    Case("search-regex-does-not-compile", search("objective", "regex", value="acc=([0-9.]+"),
         cfg("jobs.a.search.objective.regex: 'acc=([0-9.]+' is not a regular expression RE2 accepts: a '(' is never closed: add "
             "its ')' or write \\( for a literal parenthesis")),
    Case("search-regex-with-lookahead", search("objective", "regex", value="acc=(?=0)([0-9.]+)"),
         cfg("jobs.a.search.objective.regex: 'acc=(?=0)([0-9.]+)' is not a regular expression RE2 accepts: (?= (a lookahead or "
             "lookbehind) is not supported: RE2 matches in linear time without them")),
    Case("search-goal-unknown", search("objective", "goal", value="up"),
         cfg("jobs.a.search.objective.goal: must be max or min, not 'up'")),
    Case("search-space-empty", search("space", value={}),
         cfg('jobs.a.search.space: needs at least one parameter, e.g. lr: (loguniform: [0.0001, 0.1])')),
    Case("search-space-bad-name", search("space", value={"l r": {"uniform": [0, 1]}}),
         cfg("jobs.a.search.space.l r: 'l r' is not a valid name: letters, digits, '_', '.' and '-' only")),
    Case("search-space-two-forms", space(uniform=[0.1, 0.2], choice=[1]),
         cfg('jobs.a.search.space.momentum: set exactly one of uniform: [low, high], loguniform: [low, high], int: [low, high] or choice: [values]; found: uniform, choice'),
         covers=((*SEARCH, "space", "momentum", "uniform"), (*SEARCH, "space", "momentum", "choice"))),
    Case("search-space-no-form", space(points=4),
         cfg('jobs.a.search.space.momentum: set exactly one of uniform: [low, high], loguniform: [low, high], int: [low, high] or choice: [values]; found: none'),
         covers=((*SEARCH, "space", "momentum"),)),
    Case("search-uniform-out-of-order", space(uniform=[0.9, 0.5]),
         cfg('jobs.a.search.space.momentum.uniform: bounds are out of order: low 0.9 must be less than high 0.5'),
         covers=((*SEARCH, "space", "momentum", "uniform"),)),
    Case("search-uniform-one-bound", space(uniform=[0.5]),
         cfg('jobs.a.search.space.momentum.uniform: needs two bounds [low, high], got 1'),
         covers=((*SEARCH, "space", "momentum", "uniform"),)),
    Case("search-loguniform-not-positive", space(loguniform=[0, 0.1]),
         cfg('jobs.a.search.space.momentum.loguniform: bounds must be greater than 0 for a log scale, got low 0'),
         covers=((*SEARCH, "space", "momentum", "loguniform"),)),
    Case("search-loguniform-out-of-order", space(loguniform=[0.1, 0.001]),
         cfg('jobs.a.search.space.momentum.loguniform: bounds are out of order: low 0.1 must be less than high 0.001'),
         covers=((*SEARCH, "space", "momentum", "loguniform"),)),
    Case("search-int-out-of-order", space(int=[4, 1]),
         cfg('jobs.a.search.space.momentum.int: bounds are out of order: low 4 must be less than high 1'),
         covers=((*SEARCH, "space", "momentum", "int"),)),
    Case("search-int-not-whole", space(int=[1, 2.5]),
         cfg('jobs.a.search.space.momentum.int: bounds must be whole numbers, got 1, 2.5'),
         covers=((*SEARCH, "space", "momentum", "int"),)),
    Case("search-int-with-points", space(int=[1, 4], points=3),
         cfg('jobs.a.search.space.momentum.points: applies to uniform and loguniform ranges; an int range is every integer in it'),
         covers=((*SEARCH, "space", "momentum", "points"),)),
    Case("search-choice-empty", space(choice=[]),
         cfg('jobs.a.search.space.momentum.choice: is empty: list at least one value'),
         covers=((*SEARCH, "space", "momentum", "choice"),)),
    Case("search-choice-repeated", space(choice=[1, "1"]),
         cfg('jobs.a.search.space.momentum.choice: values must be distinct (as the parameter strings they become: 1, 1)'),
         covers=((*SEARCH, "space", "momentum", "choice"),)),
    Case("search-points-too-few", space(uniform=[0.1, 0.2], points=1),
         cfg('jobs.a.search.space.momentum.points: must be at least 2, not 1'),
         covers=((*SEARCH, "space", "momentum", "points"),)),
    Case("search-param-also-fixed", search("space", value={"lr": {"uniform": [0.001, 0.1]}}),
         cfg('jobs.a.search.space.lr: is also a fixed parameter: remove it from parameters or from the search space (a parameter is searched or fixed, not both)')),
    Case("search-algorithm-name-missing", search("algorithm", "name", value=DELETE),
         cfg('jobs.a.search.algorithm.name: is required')),
    Case("search-algorithm-param-bad-value", search("algorithm", "params", value={"gamma": {"x": 1}}),
         cfg('jobs.a.search.algorithm.params.gamma: must be a string, number, boolean or list, not a map')),
    Case("search-algorithm-not-a-map", search("algorithm", value="tpe_search"),
         cfg("jobs.a.search.algorithm: must be a map, not a string 'tpe_search'")),
    Case("search-trials-zero", search("trials", value=0),
         cfg('jobs.a.search.trials: must be at least 1, not 0')),
    Case("search-trials-and-num-samples", search("trials", value=8) + search("algorithm", "params", value={"num_samples": 4}),
         cfg("jobs.a.search.trials: is the algorithm's num_samples: set trials or algorithm.params.num_samples, not both"),
         covers=((*SEARCH, "trials"),)),
    Case("search-num-samples-above-the-cap", search("algorithm", "params", value={"num_samples": 10000000}),
         cfg("jobs.a.search.algorithm.params.num_samples: must be a whole number from 1 to 1000 (the trials a search "
             "may run), got 10000000")),
    Case("search-parallel-above-trials", search("trials", value=2) + search("parallel", value=4),
         cfg('jobs.a.search.parallel: 4 trials at once is more than trials (2)'),
         covers=((*SEARCH, "parallel"),)),
    Case("search-skip-not-in-space", search("skip", value=["lr"]),
         cfg("jobs.a.search.skip: lr is not in space (momentum): skip names searched parameters this job leaves "
             "out (the script's default applies)")),
    Case("search-skip-everything", search("skip", value=["momentum"]),
         cfg("jobs.a.search.skip: leaves no parameter to search")),
    Case("search-bayes-continuous-only", search("algorithm", value={"name": "bayes_opt_search"})
         + search("space", "momentum", value={"choice": [0.5, 0.9]}),
         cfg("jobs.a.search.space.momentum: bayes_opt_search searches continuous ranges only (uniform without "
             "points); use tpe_search or anneal_search for int, loguniform, choice or points"),
         covers=((*SEARCH, "space"),)),
]
