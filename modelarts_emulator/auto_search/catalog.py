"""The service's search-algorithm catalog (``GET /v2/{project_id}/search-algorithms``) and YAML templates.

The algorithms, their parameter keys, defaults, types and descriptions are the ones the service's API
reference shows in its example response (ListSearchAlgorithms): Ray Tune searchers underneath
(``bayes_opt_search`` = BayesOpt with ucb/ei/poi, ``tpe_search`` and ``anneal_search`` = HyperOpt).
``max_concurrent`` is not in that list but is a key of the service's YAML templates' ``search_algorithm``
section (trials at once); the create request takes it in ``algo_configs[].params`` too (our assumption).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AlgoParam:
    key: str
    value: str  # the default, as the service writes it
    type: str   # Integer | Float | String


@dataclass(frozen=True)
class SearchAlgorithm:
    name: str
    description: str
    params: tuple[AlgoParam, ...]
    continuous_only: bool = False  # the Bayes template: "only support continuous params"

    def param(self, key: str) -> AlgoParam | None:
        return next((p for p in self.params if p.key == key), None)


_COMMON = (AlgoParam("num_samples", "20", "Integer"), AlgoParam("seed", "1", "Integer"))
ALGORITHMS: dict[str, SearchAlgorithm] = {a.name: a for a in (
    SearchAlgorithm("bayes_opt_search", "Hyperparameter search using Gaussian process.",
                    (AlgoParam("kind", "ucb", "String"), AlgoParam("kappa", "2.5", "Float"),
                     AlgoParam("xi", "0.0", "Float"), *_COMMON), continuous_only=True),
    SearchAlgorithm("tpe_search", "Hyperparameter search using the tree-structured Parzen estimator algorithm.",
                    (AlgoParam("gamma", "0.25", "Float"), AlgoParam("n_initial_points", "20", "Integer"),
                     *_COMMON)),
    SearchAlgorithm("anneal_search", "Hyperparameter search using simulated annealing algorithm.",
                    (AlgoParam("avg_best_idx", "2.0", "Float"), AlgoParam("shrink_coef", "0.1", "Float"),
                     *_COMMON)),
)}
# Accepted in algo_configs[].params beside each algorithm's own keys (the YAML templates' key).
MAX_CONCURRENT = AlgoParam("max_concurrent", "1", "Integer")
KIND_VALUES = ("ucb", "ei", "poi")


def catalog_body() -> dict[str, object]:
    """ShowSearchAlgorithmsResponse."""
    return {"search_algo_count": len(ALGORITHMS),
            "search_algo_list": [{"name": a.name, "description": a.description,
                                  "params": [{"key": p.key, "value": p.value, "type": p.type} for p in a.params]}
                                 for a in ALGORITHMS.values()]}


# ShowAutoSearchYamlTemplatesInfo's example: the template families and names the service lists.
YAML_TEMPLATES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("hpo", ("Anneal", "Bayes", "DragonFly", "FixNorm", "GridSearch", "TPE")),
    ("nas", ("AutoBSS", "AutoEvo", "AutoTopo", "MBNAS")),
    ("augment", ("AdvAutoAugment", "AutoAugment")),
    ("compression", ("AutoCompress",)),
)
_HPO_TYPES = {"Anneal": "anneal_search", "Bayes": "bayes_opt_search", "TPE": "tpe_search"}


def templates_body() -> dict[str, object]:
    """ShowAutoSearchYamlTemplatesInfoResponse (algorithm_type_zh: the service's own placeholder text)."""
    return {"yaml_templates": [{"algorithm_type_en": kind, "algorithm_type_zh": "algorithm_type_zh to translate",
                                "algorithm_names": list(names)} for kind, names in YAML_TEMPLATES]}


def template_content(kind: str, name: str) -> dict[str, str] | None:
    """ShowAutoSearchYamlTemplateContentResponse, or None for a template the service does not list.

    The hpo templates of the catalog's algorithms follow the service's Bayes example; the others are a
    short placeholder naming the template (their search spaces are the service's, not emulated)."""
    if name not in dict(YAML_TEMPLATES).get(kind, ()):
        return None
    algo = ALGORITHMS.get(_HPO_TYPES.get(name, ""))
    if algo is None:
        content = f"# {kind}/{name}: a template of the service; the local ModelArts runs hpo searches only\r\n"
    else:
        extra = "".join(f"  {p.key}: {p.value}\r\n" for p in algo.params if p.key not in ("num_samples", "seed"))
        content = ("general:\r\n  instance_per_trial: 1\r\n  gpu_per_instance: 1\r\n  cpu_per_instance: 1\r\n\r\n"
                   "search_space:\r\n  - params:\r\n    - type: continuous_param\r\n      name : lr\r\n"
                   "      start: 0.001\r\n      stop: 0.1\r\n\r\n"
                   f"search_algorithm:\r\n  type: {algo.name}\r\n  max_concurrent: 4\r\n"
                   f"  reward_attr: accuracy\r\n  num_samples: 8\r\n{extra}  mode: max\r\n\r\n"
                   "scheduler:\r\n  type: FIFOScheduler")
    return {"file_name": f"{name}.yaml", "content": content}
