#!/usr/bin/env bash
# Set up tacticblue on a fresh Debian machine: the system packages listed in
# tools/apt-packages.txt (firmware toolchain, simulator, OpenCV's sample photos),
# then this project and its test tools into the current Python.
set -euo pipefail
cd "$(dirname "$0")"

mapfile -t wanted < <(grep -v '^\s*#' tools/apt-packages.txt | tr -s ' \t' '\n' | grep -v '^$' || true)
missing=()
for pkg in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
    echo "setup: installing system packages: ${missing[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

python3 -m pip install -q --disable-pip-version-check -e '.[test]' 2>&1 | grep -v "Running pip as the 'root' user" || true
python3 -c "import rules, tacticblue, cv2" || { echo "setup: the Python install failed" >&2; exit 1; }
echo "setup: ready"
