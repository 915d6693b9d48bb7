#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages VRMA Maker needs at run and test time, when
# missing: a Vulkan driver (Mesa; lavapipe renders on the CPU when there is no GPU),
# and for tests Xvfb and Node.js/npm. Building needs nothing beyond Rust and gcc.
set -euo pipefail
want=("$@")
missing=()
for pkg in "${want[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
    echo "Installing system packages: ${missing[*]}" >&2
    SUDO=""
    [[ $(id -u) -eq 0 ]] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
