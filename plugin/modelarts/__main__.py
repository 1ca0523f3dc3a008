"""Entry of the modelarts provider plugin: serves modelarts_provider.plugin from the repository it sits in."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository: modelarts_provider

from modelarts_provider.plugin.serve import main  # noqa: E402

if __name__ == "__main__":
    main()
