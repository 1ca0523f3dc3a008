"""Orders of pool changes: every pool create and every node-count PATCH is an order, named in the pool's
``os.modelarts/order.name`` label, whose phase tells how the change went and, when it failed, why.

Shapes: ``GET /v1/{project_id}/orders/{order_name}`` is the official SDK's ShowOrder (``{count, items}``, one
item per resource the order changes: ``resourceName``, ``action`` createPool / createNode / deleteNode,
``status`` processing / succeed / failed, ``message``); ``GET /v1/{project_id}/orders`` (filters
``involvedName``, ``since``, ``limit``, ``offset``) lists ``{orderName, involvedName, action, phase, failReason}``
newest first, as Terraform's resource pool reads it (``phase`` successed / partialSuccessed / failed, and
anything else while it is still processing).

Nothing is stored but the order's name, action, time and failure message: the statuses are derived from the
pool's nodes (their ``order`` / ``removed_order`` and times) at the time asked, like everything else here.
"""

from __future__ import annotations

import secrets
from typing import Any

CREATE_POOL, CREATE_NODE, DELETE_NODE = "createPool", "createNode", "deleteNode"


def new_order(action: str, t: int, message: str = "") -> dict[str, Any]:
    """A new order (``message``: the failure reason its nodes will end with, if a fault makes them fail)."""
    return {"name": f"order-{secrets.token_hex(6)}", "action": action, "at_ms": t, "message": message}


def node_name(pool: str, i: int) -> str:
    return f"{pool}-node-{i}"


def latest(doc: dict) -> dict | None:
    found = doc.get("orders") or []
    return found[-1] if found else None


def find(doc: dict, name: str) -> dict | None:
    return next((o for o in doc.get("orders") or [] if o["name"] == name), None)


def _node_status(n: dict, order: dict, t: int) -> str | None:
    """processing / succeed / failed of one node in `order` at t (None: the node is not part of it)."""
    if order["action"] == DELETE_NODE:
        if n.get("removed_order") != order["name"]:
            return None
        return "succeed" if t >= n["gone_ms"] else "processing"
    if n.get("order") != order["name"]:
        return None
    if t < n["ready_ms"]:
        return "processing"
    return "failed" if n.get("fail") == "creation" else "succeed"


def node_statuses(doc: dict, order: dict, t: int) -> list[tuple[int, str]]:
    out = []
    for i, n in enumerate(doc["nodes"]):
        status = _node_status(n, order, t)
        if status is not None:
            out.append((i, status))
    return out


def phase(doc: dict, order: dict, t: int) -> str:
    """processing, successed, partialSuccessed or failed."""
    statuses = [s for _, s in node_statuses(doc, order, t)]
    if "processing" in statuses:
        return "processing"
    failed = statuses.count("failed")
    if failed and failed == len(statuses):
        return "failed"
    return "partialSuccessed" if failed else "successed"


def render_detail(pool: str, doc: dict, order: dict, t: int) -> dict[str, Any]:
    """ShowOrderResponse: the pool itself (a createPool order) and each node the order changes."""
    items = []
    order_phase = phase(doc, order, t)
    if order["action"] == CREATE_POOL:
        status = {"failed": "failed", "processing": "processing"}.get(order_phase, "succeed")
        items.append(_item(pool, CREATE_POOL, status, order, t))
    for i, status in node_statuses(doc, order, t):
        action = DELETE_NODE if order["action"] == DELETE_NODE else CREATE_NODE
        items.append(_item(node_name(pool, i), action, status, order, t))
    return {"count": len(items), "items": items}


def _item(resource: str, action: str, status: str, order: dict, t: int) -> dict[str, Any]:
    return {"resourceName": resource, "action": action, "status": status, "beginTimestamp": str(order["at_ms"]),
            "updateTimestamp": str(t if status == "processing" else order["at_ms"]),
            "message": order["message"] if status == "failed" else ""}


def render_summary(pool: str, doc: dict, order: dict, t: int) -> dict[str, Any]:
    """One entry of the orders list."""
    order_phase = phase(doc, order, t)
    return {"orderName": order["name"], "involvedName": pool, "action": order["action"], "phase": order_phase,
            "failReason": order["message"] if order_phase in ("failed", "partialSuccessed") else "",
            "createTimestamp": str(order["at_ms"])}
