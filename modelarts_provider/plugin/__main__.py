"""`python -m modelarts_provider.plugin ENGINE_ADDRESS`: the provider plugin's gRPC server (the installed plugin's
launcher runs this; plugin/modelarts/__main__.py is the repository's own entry)."""

from .serve import main

main()
