#!/usr/bin/env bash
# Make sure the system packages the engine tests need are present: Java 17+ for PySpark 4.
# Called by .ci/run before the virtual environment is built; installs only what is missing.
set -euo pipefail

java_major() {
  # "openjdk version "17.0.15" 2025-04-15" -> 17 ; "java version "1.8.0_x"" -> 8
  java -version 2>&1 | awk -F'"' '/version/ {split($2, v, "."); print (v[1] == "1" ? v[2] : v[1]); exit}'
}

if command -v java >/dev/null 2>&1 && [ "$(java_major)" -ge 17 ]; then
  echo "engines.sh: Java $(java_major) present"
  exit 0
fi

echo "engines.sh: Java 17 missing; installing openjdk-17-jre-headless"
# shellcheck source=.ci/apt.sh
source "$(dirname "$0")/apt.sh"
apt_install openjdk-17-jre-headless
java -version
