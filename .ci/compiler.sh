#!/usr/bin/env bash
# The C compiler and Python headers that build streammetrics' optional compiled one-value path
# (setup.py, streammetrics/_core/_fastrows.c); installed only when missing. Without them the
# package still installs and runs in pure Python, but CI tests the compiled path
# (tests/core/test_compiled_one_value.py fails in CI when it is not built).
set -euo pipefail

has_headers() {
  python3 -c 'import os, sys, sysconfig; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))'
}

missing=()
if ! command -v cc >/dev/null 2>&1; then
  missing+=(gcc libc6-dev)
fi
if ! has_headers; then
  missing+=("$(python3 -c 'import sys; print("python%d.%d-dev" % sys.version_info[:2])')")
fi
if [ ${#missing[@]} -eq 0 ]; then
  echo "compiler.sh: a C compiler and the Python headers are present"
  exit 0
fi

echo "compiler.sh: installing ${missing[*]}"
# shellcheck source=.ci/apt.sh
source "$(dirname "$0")/apt.sh"
apt_install "${missing[@]}"
