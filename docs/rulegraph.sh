#!/usr/bin/env bash
# Redraws the README's picture of the workflow: the rule graph of the embedded default as
# Snakemake gives it (docs/rulegraph.dot, which a test keeps equal to the workflow),
# rendered by Graphviz's dot (Debian: apt-get install graphviz) to docs/rulegraph.png.
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/snakemake --rulegraph 2>/dev/null | sed -e '/^digraph/,$!d' -e 's/[[:space:]]*$//' > docs/rulegraph.dot
dot -Tpng -Gdpi=80 docs/rulegraph.dot -o docs/rulegraph.png
