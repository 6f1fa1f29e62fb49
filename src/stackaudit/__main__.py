"""`python -m stackaudit` runs the CLI."""

import sys

from stackaudit.cli.main import main

sys.exit(main())
