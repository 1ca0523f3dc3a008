import sys

from modelarts_provider.core.extras import exit_unless

exit_unless("local", "the local OBS (python -m obs_emulator)", "moto", "flask", "flask_cors")

from .cli import main  # noqa: E402 - after the check: it imports moto and Flask

sys.exit(main())
