"""The stack-config side: typed config (config.py), sweeps (sweep.py), config -> resource args (program.py)."""
