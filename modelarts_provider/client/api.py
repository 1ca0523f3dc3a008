"""``ModelArtsClient``: the training-job operations (contract: docs/ARCHITECTURE.md)."""

from __future__ import annotations

import logging
import random
import time
from typing import Any, Iterable, Iterator, Optional, TypeVar

import requests
from pydantic import ValidationError

from .auth import IamPasswordCredentials, IamTokenAuth, make_auth
from .errors import (
    ALGORITHM_NOT_FOUND,
    CANNOT_TERMINATE,
    CLIENT_AMBIGUOUS_CREATE,
    CLIENT_BAD_RESPONSE,
    DUPLICATE_NAME,
    JOB_NOT_FOUND,
    ModelArtsError,
    parse_error_body,
)
from .transport import origin
from .models import (
    TERMINAL_PHASES,
    ActionRequest,
    AlgorithmDetail,
    CreateTrainingJobRequest,
    JobSummary,
    JobSummaryList,
    SearchFilter,
    TaskLogPreview,
    TrainingEngineList,
    TrainingFlavorList,
    TrainingJob,
    TrainingJobList,
    TrainingJobSearchRequest,
    UpdateDescriptionRequest,
)
from .settings import ClientSettings
from .pool_api import PoolOperations  # pools and networks (issue 24)
from .search_api import SearchOperations  # the service's own hyperparameter search
from .tag_api import TagOperations  # a job's tags (TMS)
from .owner_token import token_on
from .transport import RetryPolicy, Transport, is_unsent_error

__all__ = ["ModelArtsClient"]

log = logging.getLogger("modelarts_provider.client")

SEARCH_PAGE_MAX = 50  # the list API's maximum page size
_Job = TypeVar("_Job", TrainingJob, JobSummary)  # a job read whole, or as its summary


class ModelArtsClient(PoolOperations, SearchOperations, TagOperations):
    """Thread-safe client of the ModelArts v2 training-job API.

    Every method raises :class:`~.errors.ModelArtsError` (or a subclass) and nothing else for
    service, network and protocol failures.
    """

    def __init__(self, settings: ClientSettings, *, transport: Optional[Transport] = None) -> None:
        self.settings = settings
        eps = settings.endpoints()
        self.endpoint = eps.modelarts
        self.iam_endpoint = eps.iam
        self._base = f"{eps.modelarts}/v2/{settings.project_id}"
        self.transport = transport or Transport(
            verify=settings.requests_verify,
            connect_timeout=settings.connect_timeout,
            read_timeout=settings.read_timeout,
            retry=RetryPolicy(
                max_retries=settings.max_retries,
                backoff_factor=settings.backoff_factor,
                backoff_max=settings.backoff_max,
                retry_after_max=settings.retry_after_max,
                total_s=settings.retry_total_s,
            ),
            pool_maxsize=settings.pool_maxsize,
            user_agent=settings.user_agent,
        )
        self.auth = make_auth(
            settings.credentials, iam_url=eps.iam, region=settings.region, fetch=self._fetch_iam_token,
            project_id=settings.project_id,
        )
        self.transport.set_secret_provider(self._secret_values)
        # A wrong endpoint (no ModelArts API there, nothing listening) is reported once per process:
        # later calls fail at once with a short line. Only while the endpoint never answered as
        # ModelArts: afterwards such an answer is one route's trouble (e.g. an API not published).
        self._api_answered = False
        self._unusable: Optional[tuple[ModelArtsError, str]] = None  # (the first error, what it found)

    # --- plumbing -----------------------------------------------------------------------------------

    def __repr__(self) -> str:
        kind = "iam-token" if isinstance(self.settings.credentials, IamPasswordCredentials) else "ak/sk"
        return f"ModelArtsClient(endpoint={self.endpoint!r}, project_id={self.settings.project_id!r}, auth={kind})"

    def __enter__(self) -> "ModelArtsClient":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        self.transport.close()

    def _secret_values(self) -> list[str]:
        values = list(self.settings.credentials.secret_values())
        if isinstance(self.auth, IamTokenAuth):
            values = self.auth.secret_values()
        return values

    def _fetch_iam_token(self, url: str, body: dict) -> requests.Response:
        try:
            return self.transport.request("POST", url, auth=None, idempotent=True, json_body=body)
        except requests.RequestException as exc:
            raise self.transport.error_from_exception(
                exc, "POST", url, setting=self._setting("iam_endpoint", "modelarts:iamEndpoint")) from None

    def _setting(self, field: str, key: str) -> str:
        """The setting that decides a URL: the override if given, else the region's default."""
        if getattr(self.settings, field, None):
            return key
        return f"modelarts:region and modelarts:cloud (or set {key})"

    def _guard(self) -> None:
        """Fail at once once the endpoint was found wrong in this process (reported in full once)."""
        if self._unusable is not None:
            first, found = self._unusable
            raise ModelArtsError(
                found, status=first.status, error_code=first.error_code,
                error_solution=f"not sent (an earlier call of this run found it); fix "
                               f"{self._setting('endpoint', 'modelarts:endpoint')}",
                endpoint_problem=True,
            )

    def _request(self, method: str, url: str, *, idempotent: bool, body: Any = None,
                 params: Optional[dict] = None, content_type: Optional[str] = None) -> requests.Response:
        """One ModelArts call (with the transport's retries); raises requests' error when no response came.
        `content_type`: the JSON body's media type when not plain application/json (a merge patch)."""
        self._guard()
        extra = {"content_type": content_type} if content_type else {}  # a transport double needs none
        response = self.transport.request(
            method, url, auth=self.auth, idempotent=idempotent, json_body=body, params=params, **extra
        )
        if not _no_api(response):
            self._api_answered = True
        return response

    def _no_response(self, exc: BaseException, method: str, url: str) -> ModelArtsError:
        err = self.transport.error_from_exception(
            exc, method, url, setting=self._setting("endpoint", "modelarts:endpoint"))
        if err.endpoint_problem and not self._api_answered:
            self._unusable = self._unusable or (err, f"nothing listens at {origin(url)}")
        return err

    def _call(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        idempotent: bool = True,
        params: Optional[dict] = None,
    ) -> requests.Response:
        url = self._base + path
        try:
            return self._request(method, url, idempotent=idempotent, body=body, params=params)
        except requests.RequestException as exc:
            raise self._no_response(exc, method, url) from None

    def _error(self, response: requests.Response) -> ModelArtsError:
        err = ModelArtsError.from_response(response, secrets=self._secret_values())
        if not _no_api(response) or err.is_not_found:
            return err
        # The gateway has no such API: a wrong endpoint or path prefix. Say which URL, and what sets it.
        url = response.request.url.split("?", 1)[0] if response.request is not None else self._base
        err = ModelArtsError(
            err.error_msg, status=err.status, error_code=err.error_code, request_id=err.request_id,
            error_solution=f"{err.method or ''} {url}: no ModelArts API at this URL; fix "
                           f"{self._setting('endpoint', 'modelarts:endpoint')} (now {self.endpoint}: "
                           "the URL before /v2/<project id>)".lstrip(),
            method=err.method, path=err.path, secrets=self._secret_values(),
            endpoint_problem=not self._api_answered,
        )
        if err.endpoint_problem and origin(url) == origin(self.endpoint):
            self._unusable = self._unusable or (err, f"no ModelArts API at {self.endpoint}")
        return err

    def _job_from(self, response: requests.Response, model: type[_Job] = TrainingJob) -> _Job:  # type: ignore[assignment]
        try:
            data = response.json()
        except ValueError:
            raise self._bad_response(response, "the response body is not JSON") from None
        if not isinstance(data, dict):
            raise self._bad_response(response, "the response body is not a JSON object")
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ())) or "body"
            raise self._bad_response(response, f"unexpected value at {where}: {first.get('msg')}") from None

    def _bad_response(self, response: requests.Response, what: str) -> ModelArtsError:
        return ModelArtsError(
            f"unreadable ModelArts response: {what}",
            status=response.status_code,
            error_code=CLIENT_BAD_RESPONSE,
            error_solution="the service answered something this client does not understand",
            request_id=response.headers.get("X-Request-Id"),
            method=response.request.method if response.request is not None else None,
            secrets=self._secret_values(),
        )

    @staticmethod
    def _check_id(job_id: str) -> str:
        if not job_id or not isinstance(job_id, str) or "/" in job_id or "?" in job_id or "#" in job_id:
            raise ValueError(f"invalid training job id {job_id!r}")
        return job_id

    # --- operations ---------------------------------------------------------------------------------

    def create_job(self, request: CreateTrainingJobRequest) -> TrainingJob:
        """Create a job; never retried blindly.

        429 and connect failures (nothing reached the service) are retried by the transport. After an
        ambiguous failure (reset, read timeout, 5xx) the job is looked up by name through the list
        API: if it exists it is returned, otherwise the create is sent again (the service rejects a
        duplicate name, which is then resolved by another lookup). So one declared job never
        becomes two. The lookup is in the request's workspace and, when the request carries an owner
        token (modelarts_provider.core.ownership), only a job with that token counts: a colleague's job of the
        same name is never returned as ours.
        """
        if not isinstance(request, CreateTrainingJobRequest):
            request = CreateTrainingJobRequest.model_validate(request)
        name = request.name
        workspace_id = request.metadata.workspace_id
        token = token_on(request.metadata.annotations)
        body = request.to_wire()
        attempts = max(1, self.settings.max_retries + 1)
        deadline = time.monotonic() + self.settings.retry_total_s
        last_error: Optional[ModelArtsError] = None
        for attempt in range(attempts):
            ambiguous: Optional[ModelArtsError] = None
            url = self._base + "/training-jobs"
            try:
                response = self._request("POST", url, idempotent=False, body=body)
            except requests.RequestException as exc:
                err = self._no_response(exc, "POST", url)
                if is_unsent_error(exc):
                    raise err from None  # definitely not created; transport already retried
                ambiguous = err
            else:
                if response.status_code in (200, 201, 202):
                    return self._job_from(response)
                err = self._error(response)
                if response.status_code >= 500:
                    ambiguous = err
                elif err.error_code == DUPLICATE_NAME and attempt > 0:
                    # an earlier, ambiguous attempt did create it
                    found = self.find_by_name(name, workspace_id, token=token)
                    if found is not None:
                        log.warning("create of %s: adopted the job created by an earlier attempt (%s)", name, found.id)
                        return found
                    raise err
                else:
                    raise err
            # ambiguous: the service may or may not have created the job
            log.warning("create of %s was ambiguous (%s); looking it up by name", name, ambiguous)
            found = self._lookup_after_ambiguous(name, workspace_id, token)
            if found is not None:
                log.warning("create of %s: the job exists (%s); not creating it again", name, found.id)
                return found
            last_error = ambiguous
            pause = min(8.0, 0.5 * 2**attempt) + random.random() * 0.25
            if time.monotonic() + pause >= deadline or attempt == attempts - 1:
                break
            time.sleep(pause)
        assert last_error is not None
        raise ModelArtsError(
            f"create of training job {name} failed and the job was not found afterwards: {last_error.error_msg}",
            status=last_error.status,
            error_code=CLIENT_AMBIGUOUS_CREATE if last_error.status is None else last_error.error_code,
            error_solution="the job was not created; retry later" if last_error.status is None
            else last_error.error_solution,
            request_id=last_error.request_id,
            secrets=self._secret_values(),
        )

    def _lookup_after_ambiguous(self, name: str, workspace_id: Optional[str],
                                token: Optional[str]) -> Optional[TrainingJob]:
        try:
            return self.find_by_name(name, workspace_id, token=token)
        except ModelArtsError as exc:
            # we cannot tell whether the job exists: stop rather than risk a second job
            raise ModelArtsError(
                f"create of training job {name} had an ambiguous outcome and the lookup by name failed: {exc.error_msg}",
                status=exc.status,
                error_code=CLIENT_AMBIGUOUS_CREATE,
                error_solution="the job may exist; run the operation again (it will look the job up first)",
                request_id=exc.request_id,
                secrets=self._secret_values(),
            ) from None

    def get_job(self, job_id: str) -> Optional[TrainingJob]:
        """The job, or None when it does not exist (ModelArts.2775 only: any other 404 is raised)."""
        return self._get_job_as(job_id, TrainingJob)

    def get_job_summary(self, job_id: str) -> Optional[JobSummary]:
        """get_job's answer read as JobSummary (id, name, status: phase and tasks), for a tool that needs no more
        (`logs`: a schema built in milliseconds)."""
        return self._get_job_as(job_id, JobSummary)

    def _get_job_as(self, job_id: str, model: type[_Job]) -> Optional[_Job]:
        response = self._call("GET", f"/training-jobs/{self._check_id(job_id)}")
        if response.status_code == 200:
            return self._job_from(response, model)
        err = self._error(response)
        if err.is_not_found:
            return None
        raise err

    def get_task_log_preview(self, job_id: str, task_id: str) -> TaskLogPreview:
        """A task's log so far (its newest 5 MB at most): ``GET .../tasks/{task_id}/logs/preview``.

        Task ids come from the job's ``status.tasks`` (``models.task_ids``). Retried like any GET;
        every error, an unknown job (ModelArts.2775) included, is raised.
        """
        job_id = self._check_id(job_id)
        if not task_id or not isinstance(task_id, str) or any(c in task_id for c in "/?#"):
            raise ValueError(f"invalid task id {task_id!r}")
        return self._read(f"/training-jobs/{job_id}/tasks/{task_id}/logs/preview", TaskLogPreview, "task log")

    def terminate_job(self, job_id: str) -> TrainingJob:
        """Terminate a job. A job that already ended (ModelArts.2796) is returned as it is.

        Raises ModelArtsError (ModelArts.2775) when the job does not exist.
        """
        job_id = self._check_id(job_id)
        response = self._call(
            "POST", f"/training-jobs/{job_id}/actions", body=ActionRequest().to_wire(), idempotent=True
        )
        if response.status_code in (200, 201, 202):
            if not response.content:
                job = self.get_job(job_id)
                if job is None:
                    raise self._error(response)
                return job
            return self._job_from(response)
        err = self._error(response)
        if err.error_code == CANNOT_TERMINATE or response.status_code == 409:
            job = self.get_job(job_id)
            if job is not None and job.phase in TERMINAL_PHASES | {"Terminating"}:
                return job
        raise err

    def delete_job(self, job_id: str) -> bool:
        """Delete a job. True when deleted, False when it was already gone (ModelArts.2775)."""
        response = self._call("DELETE", f"/training-jobs/{self._check_id(job_id)}")
        if response.status_code in (200, 202, 204):
            return True
        err = self._error(response)
        if err.is_not_found:
            return False
        raise err

    def update_description(self, job_id: str, description: str) -> TrainingJob:
        job_id = self._check_id(job_id)
        body = UpdateDescriptionRequest(description=description).to_wire(keep_nulls=True)
        response = self._call("PUT", f"/training-jobs/{job_id}", body=body)
        if response.status_code in (200, 201, 202, 204):
            if response.content:
                return self._job_from(response)
            job = self.get_job(job_id)
            if job is None:
                raise ModelArtsError(
                    f"training job {job_id} disappeared after its description was updated",
                    error_code=JOB_NOT_FOUND,
                )
            return job
        raise self._error(response)

    def list_jobs(
        self,
        name_like: Optional[str] = None,
        phases: Optional[Iterable[str]] = None,
        limit: int = 50,
        *,
        workspace_id: Optional[str] = None,
    ) -> list[TrainingJob]:
        """Jobs (newest first) through ``POST training-job-searches``, paging up to ``limit`` jobs.

        ``workspace_id`` is the list API's own key (not a filter); without it the service lists its
        default workspace ``"0"`` (SDK ``JobSearches``).
        """
        filters: list[SearchFilter] = []
        if name_like:
            filters.append(SearchFilter(key="name", operator="like", value=[name_like]))
        phase_list = [str(p) for p in phases] if phases else []
        if phase_list:
            filters.append(SearchFilter(key="phase", operator="in", value=phase_list))
        out: list[TrainingJob] = []
        for items in self._pages(min(SEARCH_PAGE_MAX, max(limit, 1)), filters, workspace_id):
            out.extend(items)
            if len(out) >= limit:
                break
        return out[:limit]

    def iter_jobs(self, page_size: int = SEARCH_PAGE_MAX, *,
                  workspace_id: Optional[str] = None) -> Iterator[TrainingJob]:
        """Every job of the project (or ``workspace_id``), newest first, one list-API page at a time.

        Pages are fetched lazily. Each job is yielded once (ids are remembered, so the jobs a new job
        pushes onto the next page are not repeated); a job created meanwhile is not yielded, and a job
        deleted meanwhile can make the one that moves into its place be missed.
        """
        if not 1 <= page_size <= SEARCH_PAGE_MAX:
            raise ValueError(f"page_size must be 1-{SEARCH_PAGE_MAX}")
        for items in self._pages(page_size, [], workspace_id):
            yield from items

    def iter_job_summaries(self, *, workspace_id: Optional[str] = None) -> Iterator[JobSummary]:
        """iter_jobs' listing, each job read as its id, name and status only (JobSummary: a schema built in
        milliseconds, for a tool that shows phases)."""
        for items in self._pages(SEARCH_PAGE_MAX, [], workspace_id, JobSummaryList):
            yield from items

    def _pages(self, size: int, filters: list[SearchFilter], workspace_id: Optional[str],
               listing: type[TrainingJobList] | type[JobSummaryList] = TrainingJobList) -> Iterator[list[Any]]:
        """The list API's pages, newest first: the jobs each page adds (never one twice).

        The documents disagree on ``offset``: the API reference (ListTrainingJobs) and the SDK's
        ``JobSearches`` call it the page number (0 = first page), ModelArts' own Python SDK
        (``get_job_list``) the number of jobs to skip. The second request, offset 1, tells them apart:
        counting jobs it starts with the first page's second job, counting pages with a job not seen
        yet. A project with one page of jobs costs one request either way.
        """
        seen: set[Optional[str]] = set()

        def fresh(page: TrainingJobList | JobSummaryList) -> list[Any]:
            new = [j for j in page.jobs if j.id not in seen]
            seen.update(j.id for j in page.jobs)
            return new

        page = self._search_page(0, size, filters, workspace_id, listing)
        yield fresh(page)
        covered = len(page.jobs)
        if _last_page(page, size, covered):
            return
        page = self._search_page(1, size, filters, workspace_id, listing)
        by_jobs = bool(page.jobs) and page.jobs[0].id in seen
        covered = (1 if by_jobs else size) + len(page.jobs)
        number = 1
        while True:
            new = fresh(page)
            yield new
            if not new or _last_page(page, size, covered):
                return  # the end (or only repeats: a page that adds nothing ends the listing)
            number += 1
            page = self._search_page(covered if by_jobs else number, size, filters, workspace_id, listing)
            covered += len(page.jobs)

    def _search_page(self, offset: int, limit: int, filters: list[SearchFilter], workspace_id: Optional[str] = None,
                     listing: type[TrainingJobList] | type[JobSummaryList] = TrainingJobList) -> Any:
        """One page of the list API (POST training-job-searches; a read, so retried like one)."""
        extra = {} if workspace_id is None else {"workspace_id": workspace_id}  # sent only when given
        req = TrainingJobSearchRequest(offset=offset, limit=limit, filters=filters, **extra)
        response = self._call("POST", "/training-job-searches", body=req.to_wire(), idempotent=True)
        return self._answer_as(response, listing, "job list")

    def find_by_name(self, name: str, workspace_id: Optional[str] = None, *,
                     token: Optional[str] = None) -> Optional[TrainingJob]:
        """The newest job with exactly this name (in ``workspace_id``; default: the service's), or None.
        With ``token``: only a job carrying that owner token (owner_token.py).

        Whether the service refuses a second job with an existing name is not documented, so the
        newest one is returned; list_jobs(name_like=...) shows them all.
        """
        if not name:
            raise ValueError("name must not be empty")
        filters = [SearchFilter(key="name", operator="like", value=[name])]
        for items in self._pages(SEARCH_PAGE_MAX, filters, workspace_id):
            for job in items:
                if job.name == name and (token is None or token_on(job.metadata.annotations) == token):
                    return job
        return None

    # --- training catalogs (read by the catalog check at preview) -----------------------------------

    def _read(self, path: str, model: type[Any], what: str, params: Optional[dict] = None) -> Any:
        return self._answer_as(self._call("GET", path, params=params), model, what)

    def _answer_as(self, response: requests.Response, model: type[Any], what: str) -> Any:
        """A 200 answer as `model`; another status raised as the service's error, a body of another shape as
        a bad response naming `what`."""
        if response.status_code != 200:
            raise self._error(response)
        try:
            return model.model_validate(response.json())
        except (ValueError, ValidationError):
            raise self._bad_response(response, f"the {what} is not in the documented format") from None

    def list_training_flavors(self, flavor_type: Optional[str] = None) -> TrainingFlavorList:
        """The public flavors a training job may use (SDK ``show_training_job_flavors``:
        ``GET /v2/{project_id}/training-job-flavors``, optionally one ``flavor_type``: CPU, GPU, Ascend)."""
        params = {"flavor_type": flavor_type} if flavor_type else None
        return self._read("/training-job-flavors", TrainingFlavorList, "flavor list", params)

    def list_training_engines(self) -> TrainingEngineList:
        """The preset engines (SDK ``show_training_job_engines``: ``GET /v2/{project_id}/training-job-engines``)."""
        return self._read("/training-job-engines", TrainingEngineList, "engine list")

    def get_algorithm(self, algorithm_id: str) -> Optional[AlgorithmDetail]:
        """An algorithm of algorithm management (SDK ``show_algorithm_by_uuid``:
        ``GET /v2/{project_id}/algorithms/{algorithm_id}``), or None when the service says "algorithm not
        found" (ModelArts.2755 only: any other error is raised)."""
        if not algorithm_id or any(c in algorithm_id for c in "/?#"):
            raise ValueError(f"invalid algorithm id {algorithm_id!r}")
        try:
            return self._read(f"/algorithms/{algorithm_id}", AlgorithmDetail, "algorithm")
        except ModelArtsError as err:
            if err.error_code == ALGORITHM_NOT_FOUND:
                return None
            raise


def _no_api(response: requests.Response) -> bool:
    """The gateway (or any web server) has no such API: a 404 that is not a ModelArts error."""
    if response.status_code != 404:
        return False
    code = parse_error_body(response.content)[0]
    return not (code or "").startswith("ModelArts.")


def _last_page(page: TrainingJobList | JobSummaryList, size: int, covered: int) -> bool:
    """A short page, or ``covered`` jobs reached the list's ``total`` (saves an empty last request)."""
    total = page.total
    if isinstance(total, str) and total.isdigit():
        total = int(total)
    return len(page.jobs) < size or (isinstance(total, int) and covered >= total)
