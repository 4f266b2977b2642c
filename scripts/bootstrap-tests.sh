#!/usr/bin/env bash
# What the tests (and the desktop benchmark) need beyond the build, from Debian's packages and PyPI: a session bus
# (dbus-daemon), busctl and gdbus to call the search providers, headless Chromium with its WebDriver for the
# search page, and Selenium and jeepney for Python. Sourced by scripts/test.sh and scripts/bench-desktop.sh, after
# scripts/bootstrap.sh.
need=()
command -v dbus-daemon >/dev/null 2>&1 || need+=(dbus-daemon)
command -v busctl >/dev/null 2>&1 || need+=(systemd)
command -v gdbus >/dev/null 2>&1 || need+=(libglib2.0-bin)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v chromedriver >/dev/null 2>&1 || need+=(chromium-driver)
command -v curl >/dev/null 2>&1 || need+=(curl)
# scripts/bootstrap.sh (sourced first) defines openspotlight_apt_install.
declare -F openspotlight_apt_install >/dev/null || source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh"
openspotlight_apt_install "${need[@]}"
if ! python3 -c "import selenium, jeepney" >/dev/null 2>&1; then
    echo "bootstrap-tests: installing selenium and jeepney (PyPI)" >&2
    python3 -m pip install -q --disable-pip-version-check selenium jeepney >&2
fi
