"""ModelArts / API-gateway error bodies and codes.

Every ModelArts error leaves the emulator as ``{"error_msg", "error_code", "error_solution"}`` — the
documented 400 body of the create API — whatever the status code. The API gateway's own "no such
API" 404 has the gateway's shape instead: ``{"error_msg", "error_code": "APIGW.0101", "request_id"}``.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field


@dataclass
class ApiError(Exception):
    """An HTTP error response; raised anywhere below the HTTP layer, rendered by responses.py."""

    status: int
    code: str
    msg: str
    solution: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    request_id: str | None = None  # set: an API-gateway body (request_id instead of error_solution)

    def body(self) -> dict[str, str]:
        if self.request_id is not None:
            return {"error_msg": self.msg, "error_code": self.code, "request_id": self.request_id}
        return {"error_msg": self.msg, "error_code": self.code, "error_solution": self.solution}


# --- ModelArts codes (documented set used by the training-job API) -------------------------------

def duplicate_name(name: str) -> ApiError:
    return ApiError(400, "ModelArts.2751", f"The training job name {name} already exists.",
                    "Use another job name or delete the existing job first.")


def algorithm_not_found() -> ApiError:
    # Exactly the documented 400 example body of CreateTrainingJob.
    return ApiError(400, "ModelArts.2755", "algorithm not found.",
                    "Check whether the training project information in the request is valid.")


def flavor_not_found(flavor_id: str) -> ApiError:
    return ApiError(400, "ModelArts.2763", f"The flavor {flavor_id} does not exist.",
                    "Use a flavor listed by the resource flavor API.")


def job_not_found(job_id: str) -> ApiError:
    # Documented as a 400 (not 404) by the service.
    return ApiError(400, "ModelArts.2775", f"The training job {job_id} does not exist.",
                    "Check whether the training job ID is correct.")


def engine_not_found(engine: str) -> ApiError:
    return ApiError(400, "ModelArts.2780", f"The engine {engine} does not exist.",
                    "Use an engine listed by the engine API.")


def flavor_invalid(msg: str) -> ApiError:
    return ApiError(400, "ModelArts.2781", msg,
                    "Check the flavor, the resource pool and the node count of the job.")


def bad_json(detail: str = "") -> ApiError:
    msg = "The request body is not valid JSON." + (f" {detail}" if detail else "")
    return ApiError(400, "ModelArts.2787", msg, "Send a JSON object as the request body.")


def invalid_param(param: str, reason: str) -> ApiError:
    return ApiError(400, "ModelArts.2788", f"Invalid parameter {param}: {reason}",
                    f"Check the value of {param}.")


def invalid_obs_path(param: str, value: str) -> ApiError:
    return ApiError(400, "ModelArts.2791", f"Invalid OBS path in {param}: {value!r}",
                    "Use an OBS path of the form obs://bucket/path or /bucket/path.")


def cannot_terminate(job_id: str, phase: str) -> ApiError:
    return ApiError(409, "ModelArts.2796",
                    f"The training job {job_id} in phase {phase} cannot be terminated.",
                    "Only jobs in the Creating, Pending or Running phase can be terminated.")


def bad_action(action: object) -> ApiError:
    return ApiError(400, "ModelArts.2812", f"Unsupported action type {action!r}.",
                    "Set action_type to terminate.")


# --- API gateway codes ----------------------------------------------------------------------------

def _gateway(status: int, code: str, msg: str) -> ApiError:
    """An answer of the API gateway itself: ``{error_msg, error_code, request_id}`` (the signing guide's
    error examples), the request id also in X-Request-Id."""
    request_id = uuid.uuid4().hex
    return ApiError(status, code, msg, headers={"X-Request-Id": request_id}, request_id=request_id)


def unauthorized(reason: str) -> ApiError:
    return _gateway(401, "APIGW.0301", f"Incorrect IAM authentication information: {reason}")


def forbidden_project(project_id: str) -> ApiError:
    # The gateway's "not authorized to access the API" code: the credentials are valid but scoped to
    # another project.
    return _gateway(403, "APIGW.0302",
                    f"The IAM user is not authorized to access the API: project {project_id} is not "
                    "owned by the credentials.")


def throttled(retry_after: float) -> ApiError:
    return ApiError(429, "APIGW.0308", "The throttling threshold has been reached.",
                    "Retry after the time given in the Retry-After header.",
                    {"Retry-After": _fmt_seconds(retry_after)})


def server_error(status: int) -> ApiError:
    code = {500: "ModelArts.0010", 502: "APIGW.0202", 503: "APIGW.0201", 504: "APIGW.0203"}
    msg = {500: "Internal server error.", 502: "Backend unavailable.",
           503: "Service temporarily unavailable.", 504: "Backend timeout."}
    return ApiError(status, code.get(status, "ModelArts.0010"), msg.get(status, "Server error."),
                    "Retry the request later.")


API_NOT_PUBLISHED = "The API does not exist or has not been published in the environment"


def not_found_route(path: str) -> ApiError:
    """The gateway's 404 for a path no API is published at (e.g. a wrong endpoint prefix); the real
    gateway does not echo the path. The same request id goes in the body and X-Request-Id."""
    request_id = uuid.uuid4().hex
    return ApiError(404, "APIGW.0101", API_NOT_PUBLISHED, headers={"X-Request-Id": request_id},
                    request_id=request_id)


def method_not_allowed(method: str, path: str) -> ApiError:
    return ApiError(405, "APIGW.0101", f"Method {method} is not allowed on {path}.",
                    "Check the request method and URI.")


def iam_bad_credentials() -> ApiError:
    return ApiError(401, "IAM.0004", "The username or password is wrong.",
                    "Check the user name, password and domain name.")


def iam_bad_request(reason: str) -> ApiError:
    return ApiError(400, "IAM.0011", f"Request parameter error: {reason}",
                    "Check the auth.identity and auth.scope of the request.")


def _fmt_seconds(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


# --- pools and networks (issue 24) -----------------------------------------------------------------
# Pool not found is documented (ShowPool/DeletePool 404 example: ModelArts.50015001 "pool not found").
# The network codes below are not in the documents we have: the emulator's assumption, same family.

POOL_NOT_FOUND = "ModelArts.50015001"
NETWORK_NOT_FOUND = "ModelArts.50015002"


def pool_not_found(name: str) -> ApiError:
    return ApiError(404, POOL_NOT_FOUND, "pool not found", f"Check the resource pool name {name}.")


def network_not_found(name: str) -> ApiError:
    return ApiError(404, NETWORK_NOT_FOUND, "network not found", f"Check the network name {name}.")


def resource_name_taken(kind: str, name: str) -> ApiError:
    return ApiError(400, "ModelArts.50015003", f"The {kind} name {name} already exists.",
                    f"Use another {kind} name or delete the existing {kind} first.")


def network_not_ready(name: str) -> ApiError:
    return ApiError(400, "ModelArts.50015004", f"The network {name} is not Active.",
                    "Wait until the network is Active, then create the pool.")


def network_in_use(name: str, pools: list[str]) -> ApiError:
    return ApiError(409, "ModelArts.50015005",
                    f"The network {name} is used by resource pools {', '.join(pools)}.",
                    "Delete the resource pools of the network first.")


def parameter_error(param: str, reason: str) -> ApiError:
    """The service's generic "Parameter error." (ModelArts.0104, on the API reference's error-code page):
    what the pool and network APIs answer to a body that breaks a documented rule."""
    return ApiError(400, "ModelArts.0104", f"Parameter error. {param}: {reason}", f"Check the value of {param}.")


def order_not_found(name: str) -> ApiError:
    return ApiError(404, "ModelArts.50015007", "order not found", f"Check the order name {name}.")


def pool_not_scalable(name: str, phase: str) -> ApiError:
    return ApiError(409, "ModelArts.50015006", f"The resource pool {name} in phase {phase} cannot be scaled.",
                    "Scale a resource pool only while it is Running.")
