"""How an amount of money is printed: cents, with thousands separators, and never a non-zero amount as 0.00.

A 10-second CPU job costs about 0.001 CNY: printed in cents it read `0.00 CNY`, as if it were free. Below half a
cent an amount is printed with two significant digits instead (0.0012), so what was spent is never hidden.

- ``spent``: what was spent, half up (each printed figure within half a cent of the export);
- ``bound``: an upper bound, rounded up (a bound printed below its value would promise less than it holds).
"""

from __future__ import annotations

from decimal import ROUND_CEILING, ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")
HALF_CENT = Decimal("0.005")


def _text(v: Decimal, rounding: str) -> str:
    if v == 0:
        return "0.00"
    if abs(v) < HALF_CENT or (rounding == ROUND_CEILING and abs(v) < CENT):
        # two significant digits at most: 0.0012, 0.00004
        return f"{v.quantize(Decimal(1).scaleb(v.adjusted() - 1), rounding).normalize():f}"
    return f"{v.quantize(CENT, rounding):,}"


def spent(v: float | Decimal) -> str:
    """An amount spent (an exported float is read from its decimal text: 1.575 prints 1.58)."""
    return _text(v if isinstance(v, Decimal) else Decimal(str(v)), ROUND_HALF_UP)


def bound(v: Decimal | None) -> str:
    """An upper bound or a price: rounded up, so the figure printed is never below the one that holds."""
    return _text(v or Decimal(0), ROUND_CEILING)
