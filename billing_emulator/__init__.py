"""Local billing service: Huawei Cloud BSS's rating API for pay-per-use resources (docs/cost.md)."""
