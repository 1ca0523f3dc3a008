"""What every dynamic provider of this package shares: settings from `configure()`, one client per
provider process, and line-safe progress output.

A provider object is pickled into the state (by reference to its class) and must never carry state:
`__reduce__` pickles the class alone, whatever was set on the instance (Automation API and inline
programs run providers in the program process, where a configured instance would otherwise pickle
its settings, credentials included).
"""

from __future__ import annotations

import functools
import math
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, ClassVar, Generic, Mapping, TypeVar

from pulumi.dynamic import CheckFailure, CheckResult, ConfigureRequest, ResourceProvider

from .collector import imports_done, live_objects
from .deferred_tags import TAG_WRITES
from .failures import for_engine
from .unknowns import one_spelling
from .call_urn import CURRENT_URN
from .masking import NONE, Secrets, binding, mask
from .ownership import keyed, with_key_secret
from .provider_error import ProviderError
from .recorded_failure import RecordedFailure, init_failed_status
from .renames import RENAMED_FROM_KEY, RENAMES, RenameRefused
from .resource_inputs import Checked
from .provider_config import NAMESPACE, ProviderConfigError, ProviderSettings, resolve_settings
from ..wait_engine import Condition, Done, Failed, wait
from ..wait_engine.cancel import request_cancel  # the engine's Cancel

S = TypeVar("S")

_OUTPUT_LOCK = threading.Lock()
_WATCHDOG_STARTED = threading.Event()
_SHELLS = frozenset({"sh", "dash", "bash"})


def _parent_of(pid: int) -> int | None:
    """The parent pid of a process (Linux /proc), or None when it is gone or unknown."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            # pid (comm) state ppid ...: comm may hold spaces, so split after its closing paren
            return int(f.read().rsplit(b")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def _program(pid: int) -> str:
    """The executable's name (for a `#!/bin/sh` script: the shell, not the script)."""
    try:
        return os.path.basename(os.readlink(f"/proc/{pid}/exe"))
    except OSError:
        return ""


# The engine starts the dynamic provider through a /bin/sh launcher that does not exec, and the stack program
# through the Python language host: the engine is then that launcher's or host's parent. Both links are watched.
_LANGUAGE_HOSTS = ("pulumi-language-python", "pulumi-python-host")  # upstream's name; ours (scripts/python-launcher)


def _in_between(pid: int) -> bool:
    program = _program(pid)
    return program in _SHELLS or program.startswith(_LANGUAGE_HOSTS)


_PARENT_PID = os.getppid()
_ENGINE_PID = _parent_of(_PARENT_PID) if _in_between(_PARENT_PID) else None
_CLIENTS: dict[ProviderSettings, Any] = {}
_CLIENTS_LOCK = threading.Lock()


# Where say() writes when not to stderr: the provider plugin's engine log (plugin/diagnostics.py).
_OUTPUT: Callable[[str, str], None] | None = None


def set_output(output: Callable[[str, str], None] | None) -> None:
    """Send say()'s lines to `output(line, severity)` instead of stderr (None: stderr again)."""
    global _OUTPUT
    _OUTPUT = output


def say(message: str, secrets: Secrets | None = None) -> None:
    """One line to the provider's stderr, which the engine relays into `pulumi up` for a dynamic provider (the
    provider plugin sends it to the engine's log instead: the engine hides a plugin's stderr).

    Every line passes the masking step (`secrets`, else the running call's own). One write per line under a lock: provider calls run on many threads, and two `print`s could
    otherwise interleave into one merged line. A line starting with "warning:" is a warning.
    """
    message = mask(message, secrets)
    output = _OUTPUT
    if output is not None:
        # The engine prints a warning's severity itself ("warning: ..."): the line's own prefix goes.
        warning = message.lower().startswith("warning:")
        output((message[len("warning:"):].lstrip() if warning else message).rstrip("\n"), "warning" if warning else "info")
        return
    with _OUTPUT_LOCK:
        sys.stderr.write(message.rstrip("\n") + "\n")
        sys.stderr.flush()


_CANCEL_LISTENING = threading.Event()  # listen_for_cancel() ran in this process
_CANCEL_METHOD = "/pulumirpc.ResourceProvider/Cancel"


def listen_for_cancel() -> None:
    """Make the engine's Cancel call reach this process's waits.

    On the first Ctrl-C the engine calls Cancel on every provider, then waits for the steps in flight. The
    SDK's dynamic-provider server answers Cancel and does nothing, so a JobsAwait went on waiting until
    training ended. Its gRPC server registered that answer before any of our code was loaded, so the one
    registered handler of Cancel is wrapped here, once: it records the request, then answers as before.
    Everything else of the server is untouched. (The real provider of issue 25 gets Cancel first-hand.)
    Called from configure(), i.e. only in a provider process.
    """
    import grpc

    def recording(handler: Any) -> Any:
        answer = handler.unary_unary

        def cancel(request: Any, context: Any) -> Any:
            request_cancel()
            return answer(request, context)

        return grpc.unary_unary_rpc_method_handler(cancel, request_deserializer=handler.request_deserializer,
                                                   response_serializer=handler.response_serializer)

    def wrapped(method: str, handler: Any) -> Any:
        if method == _CANCEL_METHOD:
            return recording(handler)
        return clean_errors(handler) if method.startswith(_PROVIDER_SERVICE) else handler

    for obj in _grpc_servers():
        registered = getattr(obj, "registered_method_handlers", {})
        for method in list(registered):
            registered[method] = wrapped(method, registered[method])
        for generic in getattr(obj, "generic_handlers", []):
            handlers = getattr(generic, "_method_handlers", None)
            if isinstance(handlers, dict):
                for method in list(handlers):
                    handlers[method] = wrapped(method, handlers[method])


# The module the engine runs a dynamic provider as (`python -m pulumi.dynamic`: pulumi-resource-pulumi-python).
DYNAMIC_SERVER_MODULE = "pulumi.dynamic.__main__"


def serving_engine() -> bool:
    """Whether this call comes from the engine: it named its URN (core/call_urn.py; the plugin always does), or
    this process is the dynamic-provider server (whose first call runs before its handlers are wrapped).
    Provider code called directly (library use, unit tests) has no stack state to read."""
    return bool(CURRENT_URN.get()) or dynamic_server()


def dynamic_server() -> bool:
    """Whether this process is the dynamic-provider server (the Python stack program's door)."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    return getattr(spec, "name", None) == DYNAMIC_SERVER_MODULE


def _grpc_servers() -> list[Any]:
    """The gRPC servers' states of this process (the dynamic-provider server's, in a provider process)."""
    return [obj for obj in live_objects()
            if type(obj).__name__ == "_ServerState" and type(obj).__module__ == "grpc._server"]


# Provider calls in flight at once, on both front doors (the plugin's own server has as many threads). A
# create is one POST: with the dynamic-provider server's 4 threads, a sweep's creates queued 4 at a time
# behind the service's latency (512 jobs x 100 ms / 4 = 12.8 s), and a JobsAwait or a pool's wait held one
# of the 4 for its whole wait. The engine runs every ready step at once unless told `--parallel N`, the
# user's knob; the service's throttling (429) is retried with backoff (client/transport.py).
CALLS_IN_FLIGHT = 256


def widen_server_threads(workers: int = CALLS_IN_FLIGHT) -> int:
    """Let the dynamic-provider server run up to `workers` calls at once; the number of servers widened.

    The SDK starts its server with ThreadPoolExecutor(max_workers=4) before any of our code is loaded. A
    ThreadPoolExecutor reads `_max_workers` at each submit to decide whether to start another thread, so
    raising it on the live executor is enough; threads are still started only as calls arrive."""
    widened = 0
    for state in _grpc_servers():
        pool = getattr(state, "thread_pool", None)
        if isinstance(pool, ThreadPoolExecutor) and getattr(pool, "_max_workers", workers) < workers:
            pool._max_workers = workers  # type: ignore[attr-defined]
            widened += 1
    return widened


_PROVIDER_SERVICE = "/pulumirpc.ResourceProvider/"
_PROVIDER_KEY = "__provider"  # the SDK's dynamic-provider server hands every call the pickled provider under it


def _ours(err: BaseException) -> bool:
    """An error this product raises on purpose: its message is one line for the user, already masked."""
    return type(err).__module__.startswith("modelarts_provider.")


def clean_errors(handler: Any) -> Any:
    """The handler, answering with an error's own message where the SDK's server would prefix it, and
    setting the call's URN (core/call_urn.py) around it.

    When a dynamic provider's create/update/delete raises, grpc's server answers `Exception calling
    application: <message>` and logs a traceback; the engine prints that prefix before our one-line
    message. Our own errors (ProviderError and the like) are answered as they are (context.abort with
    the message); anything else keeps grpc's answer, which names the unexpected exception."""
    import grpc

    behavior = getattr(handler, "unary_unary", None)
    if behavior is None or getattr(behavior, "_clean_errors", False):
        return handler

    def call(request: Any, context: Any) -> Any:
        # The call's URN for this call only (core/call_urn.py): the SDK's handlers do not pass it on.
        urn = getattr(request, "urn", "")
        reset = CURRENT_URN.set(urn if isinstance(urn, str) else "")
        try:
            return behavior(request, context)
        except Exception as err:  # noqa: BLE001 - only ours is answered here, the rest is re-raised
            if not _ours(err):
                raise
            if isinstance(err, RecordedFailure):  # failed, with outputs to record (core/recorded_failure.py)
                context.abort_with_status(init_failed_status(str(err), err.resource_id, _recorded(request, err)))
            context.abort(grpc.StatusCode.UNKNOWN, mask(str(err)) or type(err).__name__)
        finally:
            CURRENT_URN.reset(reset)

    call._clean_errors = True  # type: ignore[attr-defined]  # wrapped once, however often configure runs
    return grpc.unary_unary_rpc_method_handler(call, request_deserializer=handler.request_deserializer,
                                               response_serializer=handler.response_serializer)


def _recorded(request: Any, err: RecordedFailure) -> Any:
    """The outputs of a RecordedFailure as the SDK's server serializes a create's or update's (its `__provider`
    from the request, as the server adds it to every result)."""
    import asyncio

    from pulumi.runtime import rpc

    loop = asyncio.new_event_loop()
    try:
        struct = loop.run_until_complete(rpc.serialize_properties(err.outs, {}))
    finally:
        loop.close()
    given = getattr(request, "news", None) if hasattr(request, "olds") else getattr(request, "properties", None)
    if given is not None and _PROVIDER_KEY in given.fields:
        struct.fields[_PROVIDER_KEY].CopyFrom(given.fields[_PROVIDER_KEY])
    return struct


def engine_alive() -> bool:
    """The engine that launched this process (a provider, or the stack program) is still there (as parent or
    grandparent)."""
    if os.getppid() != _PARENT_PID:
        return False
    return _ENGINE_PID is None or _parent_of(_PARENT_PID) == _ENGINE_PID


def start_orphan_watchdog(every_s: float = 1.0) -> None:
    """Exit this process once the engine that started it is gone.

    The engine starts plugins and the language host in their own process groups; when `pulumi up` is
    SIGKILLed nobody stops them. A provider would otherwise serve nothing forever (or go on waiting, and
    terminate jobs on its own when their deadline passes); the stack program waits forever on registrations
    nobody answers, and its language host with it. Called from configure() in a provider process, and by the
    stack program's main().
    """
    if _WATCHDOG_STARTED.is_set():
        return
    _WATCHDOG_STARTED.set()

    def watch() -> None:
        wait(Condition("engine gone", engine_alive, judge=lambda alive: None if alive else Done(None),
                       too_late=lambda _alive: Failed("")), timeout_s=math.inf, poll_s=every_s)
        TAG_WRITES.flush()  # the jobs just created get their owner tags all the same (core/deferred_tags.py)
        os._exit(3)  # nothing to tell: the engine's end of our stderr is gone with it

    threading.Thread(target=watch, name="orphan-watchdog", daemon=True).start()


def client_for(settings: ProviderSettings) -> Any:
    """One pooled client per settings per process, shared by every resource type."""
    with _CLIENTS_LOCK:
        client = _CLIENTS.get(settings)
        if client is None:
            from ..client import ModelArtsClient

            client = _CLIENTS[settings] = ModelArtsClient(settings.to_client_settings())
        return client


_CALLS = ("check", "diff", "create", "read", "update", "delete")


def _binding_secrets(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def bound(self: Any, *args: Any) -> Any:
        with binding(self.secrets_of(*(a for a in args if isinstance(a, dict)))):
            return method(self, *args)

    bound._binds_secrets = True  # type: ignore[attr-defined]
    return bound


class SettingsProvider(ResourceProvider, Generic[S]):
    """Settings of type S from `configure()` (the `modelarts:` config, else the environment).

    A subclass names its resolver and errors. Bad settings do not fail configure(): the message is
    kept and raised by the first call that needs the settings (and may be reported by check()).
    """

    # The serialized provider holds no secret (see module docstring); keep it plain in the state.
    serialize_as_secret_always = False

    # Class-level defaults: an instance pickles with nothing of its own.
    _settings: S | None = None
    _config_error: str | None = None
    _config: Any = None  # the configure request's config (`.get("modelarts:<key>")`)

    _resolve: ClassVar[Callable[[Callable[[str], Any], Mapping[str, str]], Any]]  # a staticmethod
    _bad_config: ClassVar[type[Exception]]  # what _resolve raises on unusable settings
    _unusable: ClassVar[type[Exception]]  # what _require_settings raises
    _missing: ClassVar[str]

    def __reduce__(self) -> tuple[type, tuple[()]]:
        return (type(self), ())

    def secrets_of(self, *_props: dict[str, Any]) -> Secrets:
        """The secrets among a call's inputs (a resource that takes secrets says which, from the inputs
        themselves): bound for the call, so its lines and errors mask them (masking.binding). None by default."""
        return NONE

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Every provider call masks what it prints with the secrets of its own inputs (`secrets_of`, bound for
        the call: masking.binding), on both front doors. Every provider's check(), called by the SDK's
        dynamic-provider server (the news carry the pickled provider), answers failures the engine prints
        well (failures.for_engine). The plugin does the same at its edge, in its own naming; a direct call
        (a library user, a test) gets the failures as found."""
        super().__init_subclass__(**kwargs)
        imports_done()  # a provider class is defined once its module's imports are in (core/collector.py)
        diff = cls.__dict__.get("diff")
        if diff is not None and not getattr(diff, "_one_spelling", False):
            @functools.wraps(diff)
            def diffed(self: Any, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> Any:
                return diff(self, id_, one_spelling(olds), one_spelling(news))

            diffed._one_spelling = True  # type: ignore[attr-defined]
            cls.diff = diffed  # type: ignore[method-assign]
        for name in _CALLS:
            method = cls.__dict__.get(name)
            if method is not None and not getattr(method, "_binds_secrets", False):
                setattr(cls, name, _binding_secrets(method))
        check = cls.__dict__.get("check")
        if check is not None and not getattr(check, "_for_engine", False):
            @functools.wraps(check)
            def checked(self: Any, olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
                result = check(self, one_spelling(olds), one_spelling(news))  # unknowns: one spelling
                if isinstance(news, dict) and _PROVIDER_KEY in news:
                    top_level = set(news)
                    result.failures = [CheckFailure(*for_engine(f.property, f.reason, top_level))
                                       for f in result.failures or []]
                return result

            checked._for_engine = True  # type: ignore[attr-defined]
            cls.check = checked  # type: ignore[method-assign]

    def configure(self, req: ConfigureRequest) -> None:
        start_orphan_watchdog()
        if not _CANCEL_LISTENING.is_set():
            _CANCEL_LISTENING.set()
            listen_for_cancel()
            widen_server_threads()
        self._config = req.config  # kept for another service's settings (a bucket lists the jobs)
        try:
            self._settings = self._resolve(lambda k: req.config.get(f"{NAMESPACE}:{k}"), os.environ)
            self._config_error = None
        except self._bad_config as err:
            self._settings, self._config_error = None, str(err)
        try:  # refused: no former name is believed, and every check says why (core/renames.py)
            RENAMES.configure(req.config.get(f"{NAMESPACE}:{RENAMED_FROM_KEY}"))
        except RenameRefused as err:
            self._config_error = self._config_error or str(err)

    def _modelarts(self) -> Any:
        """The ModelArts client of this provider's `modelarts:` config (else the environment), for a provider of
        another service; ProviderConfigError when it names no usable ModelArts settings."""
        config = self._config
        return client_for(resolve_settings(lambda k: config.get(f"{NAMESPACE}:{k}") if config is not None else None,
                                           os.environ))

    def _require_settings(self) -> S:
        if self._settings is None:
            if self._config_error is None:  # configure() not called (e.g. direct use): read env only
                try:
                    self._settings = self._resolve(lambda _k: None, os.environ)
                except self._bad_config as err:
                    self._config_error = str(err)
            if self._settings is None:
                raise self._unusable(self._config_error or self._missing)
        return self._settings


class ModelArtsProvider(SettingsProvider[ProviderSettings]):
    _resolve = staticmethod(resolve_settings)
    _bad_config = ProviderConfigError
    _unusable = ProviderError
    _missing = "provider settings missing"

    def _api(self) -> Any:
        return client_for(self._require_settings())

    def _checked(self, olds: dict[str, Any], news: dict[str, Any],
                 check: Callable[[dict[str, Any]], Checked[Any]]) -> CheckResult:
        """check()'s answer for a resource whose inputs are kept as given: the inputs (the owner mark's key, made
        from the stack's seed, a secret of its own: core/ownership.py; the seed never kept), one failure per bad
        field, and unusable provider settings as one more (they fail the preview here rather than the first API
        call)."""
        news = keyed(news, olds)
        out = [CheckFailure(f.property, f.reason) for f in check(news).failures]
        if self._config_error is not None:
            out.append(CheckFailure("modelarts", f"provider configuration: {self._config_error}"))
        return CheckResult(with_key_secret(keyed(news, None)), out)


