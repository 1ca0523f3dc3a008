"""The search operations of ``ModelArtsClient`` (a mixin; paths of the SDK's ``show_search_algorithms``,
``show_auto_search_trials`` and ``show_auto_search_trial_early_stop``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .lazy import loaded

if TYPE_CHECKING:
    from .search_models import AutoSearchTrials, SearchAlgorithmList, Trial

# One request reads every trial of a search up to this many (the stack allows at most 1000 trials).
TRIALS_PAGE = 1000
MAX_PAGES = 10


def _models() -> Any:
    return loaded(".search_models")  # at the first call (lazy.py)


def _safe(value: str, what: str) -> str:
    if not value or not isinstance(value, str) or any(c in value for c in "/?#"):
        raise ValueError(f"invalid {what} {value!r}")
    return value


class SearchOperations:
    """Mixed into ModelArtsClient: uses its _read, _call, _error and _bad_response."""

    def list_search_algorithms(self: Any) -> SearchAlgorithmList:
        """The catalog of search algorithms and their parameters (``GET /v2/{project_id}/search-algorithms``)."""
        return self._read("/search-algorithms", _models().SearchAlgorithmList, "search algorithm list")

    def auto_search_trials(self: Any, job_id: str, *, limit: int = TRIALS_PAGE, offset: int = 0) -> AutoSearchTrials:
        """One page of a search job's trials (``GET .../training-jobs/{id}/autosearch-trials``); ``offset``
        counts pages (0: the first), as the SDK documents it."""
        path = f"/training-jobs/{_safe(job_id, 'job id')}/autosearch-trials"
        return self._read(path, _models().AutoSearchTrials, "trials table", {"limit": limit, "offset": offset})

    def all_trials(self: Any, job_id: str, reward_name: str | None = None) -> list[Trial]:
        """Every trial of a search: one request, more only past TRIALS_PAGE trials."""
        out: list[Trial] = []
        seen = 0
        for number in range(MAX_PAGES):
            page = self.auto_search_trials(job_id, offset=number)
            out += _models().trials_of(page, reward_name)
            total = page.total if isinstance(page.total, int) else None
            count = len((page.items.data if page.items else None) or [])
            seen += count
            if count < TRIALS_PAGE or total is None or seen >= total:
                break
        return out

    def early_stop_trial(self: Any, job_id: str, trial_id: str) -> str | None:
        """Stop one trial early (``POST .../autosearch-trial-earlystop/{trial_id}``); the stopped trial's id."""
        path = f"/training-jobs/{_safe(job_id, 'job id')}/autosearch-trial-earlystop/{_safe(trial_id, 'trial id')}"
        response = self._call("POST", path, idempotent=True)
        if response.status_code not in (200, 201, 202):
            raise self._error(response)
        if not response.content:
            return trial_id
        try:
            return _models().EarlyStopResponse.model_validate(response.json()).earlystop_trial
        except ValueError:
            raise self._bad_response(response, "the early stop answer is not in the documented format") from None
