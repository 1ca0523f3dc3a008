"""modelarts-jobs: ModelArts training jobs declared in stack config (the stack program).

A project's whole program is `from modelarts_provider.stack.run import main` and `main()` in its __main__.py
(this repository's own, and the template's: templates/modelarts-python).

Reads the typed stack config (schema: modelarts_provider/stack/config.py; provider settings:
modelarts_provider/core/provider_config.py), validates all of it before any resource is declared (so a
bad key or value fails `pulumi preview` with one line naming it and no API call), declares the
buckets and code uploads the jobs need, one TrainingJob per job and per sweep point, one JobsAwait
that waits for all of them (each to its own `waitFor`), and exports per job its id, name, phase and
output path:

    jobs: {<job key>: {id, name, phase, outputPath}}
    sweeps: {<sweep>: {objective, failures, points: [...], best}}   (modelarts_provider/stack/results.py)
    objectives: {<job key>: {name, goal, value, note, diverged}}     (jobs with an objective)

The phase of a job that is waited for comes from the JobsAwait (the phase its wait ended in, fresh
after `up` and after `refresh --run-program`); that of a `waitFor: none` job from the TrainingJob.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NoReturn

import pulumi
from pulumi.runtime import get_config_env, is_config_secret

from modelarts_provider.core.collector import imports_done
from modelarts_provider.core.masking import NONE, Secrets, mask
from modelarts_provider.core.messages import shown
from modelarts_provider.core.engine_watch import start_orphan_watchdog
from modelarts_provider.core.provider_config import (NAMESPACE, ProviderConfigError, resolve_settings,
                                                     unknown_setting_errors)
from modelarts_provider.cost.preview import cost_preview
from modelarts_provider.cost.spent import export_cost
from modelarts_provider.stack import debug_lines, fast_exit
from modelarts_provider.stack.config import PROJECT, SECTIONS, StackConfigError, parse
from modelarts_provider.stack.config_file import read_stack_config
from modelarts_provider.stack.declare import declare
from modelarts_provider.stack.namespaces import misspelled_namespaces
from modelarts_provider.stack.program import plan
from modelarts_provider.stack.secrets import name_refusals, secret_paths

imports_done()  # the program's modules are in: its run's collections skip them


# The language host's exit code for "the error was shown to the user" (pulumi-language-python-exec): after it,
# the engine adds no "program exited with non-zero exit code" error of its own. A RunError exits with 1.
SHOWN_EXIT_CODE = 32


class InputRefused(SystemExit):
    """The program refused its input: the lines were shown as the program's errors, nothing else follows."""

    def __init__(self, message: str) -> None:
        super().__init__(SHOWN_EXIT_CODE)
        self.message = message

    def __str__(self) -> str:
        return self.message


def refuse(message: str) -> NoReturn:
    """Bad input: one error per line, shown once (under the stack, as the engine shows a RunError), then the
    program ends with the language host's code for a message already shown."""
    pulumi.log.error(message)
    raise InputRefused(message)


def main() -> None:
    start_orphan_watchdog()  # a SIGKILLed engine leaves no program (and so no language host) behind
    if fast_exit.under_executor():  # run by the language host (not under a test's mocks): issue 59
        fast_exit.install()  # the process ends when the `up` is over, without the interpreter's teardown
        debug_lines.install()  # the SDK's debug lines sent from a thread, not waited for on the event loop
    keys = sorted(get_config_env())
    masked = NONE  # the stack config's secrets, once read: every message of this program masks them
    try:
        # A slip in a namespace first: the program would see nothing there and the up delete it all (issue 41).
        bad = misspelled_namespaces(keys, (PROJECT, NAMESPACE)) or unknown_setting_errors(keys)
        if bad:
            raise ProviderConfigError("\n".join(bad))  # one error per line
        provider_cfg = pulumi.Config(NAMESPACE)
        settings = resolve_settings(provider_cfg.get, os.environ)  # validated here; the provider re-reads it
        project_cfg = pulumi.Config(PROJECT)
        raw = {}
        for section in SECTIONS:
            try:
                raw[section] = project_cfg.get_object(section)
            except Exception:  # not JSON: a plain string where a map is expected
                if section == "keepRuns":  # a number: the model says what is allowed
                    raw[section] = project_cfg.get(section)
                    continue
                given = "" if is_config_secret(f"{PROJECT}:{section}") else f" {shown(project_cfg.get(section))}"
                raise StackConfigError(f"invalid stack config: {PROJECT}:{section}: must be a map, "
                                       f"not a string{given}") from None
        secrets = secret_paths(raw, lambda s: f"{PROJECT}:{s}", is_config_secret,
                               lambda: read_stack_config(Path.cwd(), pulumi.get_stack()))
        masked = Secrets.of(secrets.values)
        cfg = parse(raw, keys)
        refused = name_refusals(raw, secrets, lambda s: f"{PROJECT}:{s}")
        if refused:
            raise StackConfigError("\n".join(refused))
        plans = plan(cfg)
        # What it can bill (docs/cost.md): shown before anything is declared; a budget it exceeds stops here.
        cost = cost_preview(cfg, plans, settings)
        for line in cost.lines:
            pulumi.log.info(mask(line, masked))
        if cost.refusal:
            raise StackConfigError(cost.refusal)
    except (ProviderConfigError, StackConfigError) as err:
        refuse(mask(str(err), masked))

    jobs, waited = declare(cfg, plans, secrets)
    exports = {}
    for key, job in jobs.items():
        phase = job.phase
        if waited is not None and job.await_spec["wait_for"] != "none":
            phase = waited.phases.apply(lambda phases, k=key: (phases or {}).get(k))
        exports[key] = {"id": job.job_id, "name": job.job_name, "phase": phase, "outputPath": job.output_path}
    pulumi.export("jobs", exports)

    # Results (issue 23): per sweep its points and best point; per scored job its objective value.
    from modelarts_provider.stack.results import export_results

    export_results(cfg, plans, jobs, waited, secrets.values)
    export_cost(cfg, plans, waited, cost.book)  # what each run spent (cost/spent.py)

