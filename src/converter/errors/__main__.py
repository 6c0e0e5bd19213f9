"""`python -m converter.errors` (`make docs`): docs/refusals.md on stdout."""

import sys

from converter.errors.codes import render_catalogue

sys.stdout.write(render_catalogue())
