"""ModelArts' own hyperparameter search (``algorithm.policies.auto_search``), one package like moto's per
service: the algorithm catalog (catalog.py), the create rules and the declared search (space.py), the
trials and their tables (trials.py), simulated trials (simulate.py), trials run for real with Optuna's
samplers (runner.py, ``--execute``) and the HTTP routes (api.py).

Import the modules themselves (``from .auto_search import api``): the package root stays empty so that
jobs/validation.py can use space.py without importing the store (jobs/models.py imports jobs/validation.py).
"""
