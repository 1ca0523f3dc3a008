"""The awaiting resource: waits for many TrainingJobs at once (kept apart from the jobs' CRUD).

conditions.py  await conditions: small composable judgements of one job (failed, reached, too late)
watcher.py     polls many jobs in one call (list API pages or bounded concurrent GETs), one line per
               phase change and a periodic summary; terminates jobs past their deadline
report.py      the error of a wait that did not end well (every failed job, its tasks, its log tail)
args.py        inputs and outputs (pydantic)
provider.py    JobsAwaitProvider (the dynamic provider)
resource.py    JobsAwait (the Pulumi resource) and await_jobs()
"""
