#!/usr/bin/env bash
# Create bench/ns3_compare/.venv-ns3 with the ns-3 Python bindings from PyPI.
# Idempotent: reuses the venv and skips pip when the pinned ns3 version is installed.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="$HERE/.venv-ns3"
# Pinned so numbers stay comparable between runs; 3.44.post0 is the PyPI wheel
# the README's numbers were measured with.
NS3_VERSION="${NS3_VERSION:-3.44.post0}"

if [[ ! -x "$VENV/bin/python" ]]; then
    python3 -m venv "$VENV"
fi

# `pip show` is cheap; importing ns (cppyy) is not, so check the installed version.
if [[ "$("$VENV/bin/python" -m pip show ns3 2>/dev/null | sed -n 's/^Version: //p')" != "$NS3_VERSION" ]]; then
    "$VENV/bin/python" -m pip install --disable-pip-version-check -q "ns3==$NS3_VERSION"
fi

# The first import lets cppyy parse the ns-3 headers and is slow; doing it here
# keeps that cost out of the first benchmark run.
# cppyy's "Failed to materialize symbols" lines are harmless noise (cppyy issue #156).
"$VENV/bin/python" -c 'from ns import ns; ns.Simulator.Now(); print("ns-3 bindings OK")' 2>&1 \
    | grep -v 'Failed to materialize symbols'
echo "venv ready: $VENV"
