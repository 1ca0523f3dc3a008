"""What a stack will cost and what it spent (docs/cost.md): prices, bounds at preview, the budget, spent."""
