#!/usr/bin/env bash
# Checks scripts/install.sh end to end in a throwaway prefix: every file lands, the installed command runs, the man
# page and completions are real, and --uninstall removes exactly what was installed.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix="$(mktemp -d)"
trap 'rm -rf "$prefix"' EXIT
fail() { echo "test-install: FAILED: $*" >&2; exit 1; }

OPENSPOTLIGHT_BUILD_CONFIGURATION=debug scripts/install.sh "$prefix" > "$prefix.log" 2>&1 || { cat "$prefix.log" >&2; fail "install.sh exited $?"; }
rm -f "$prefix.log"
"$prefix/bin/spotlight" --version | grep -q '^spotlight (OpenSpotlight) ' || fail "the installed spotlight does not run"
head -c 200 "$prefix/share/man/man1/spotlight.1" | grep -q '^\.Dd\|^\.TH\|^\.\\"' || fail "the man page is not troff"
grep -q 'doctor' "$prefix/share/man/man1/spotlight.1" || fail "the man page lacks the subcommands"
grep -q '_spotlight' "$prefix/share/bash-completion/completions/spotlight" || fail "no bash completion"
grep -q '#compdef spotlight' "$prefix/share/zsh/site-functions/_spotlight" || fail "no zsh completion"
grep -q "complete -c 'spotlight'" "$prefix/share/fish/vendor_completions.d/spotlight.fish" || fail "no fish completion"
scripts/install.sh --uninstall "$prefix" > /dev/null
left="$(find "$prefix" -type f)"
[ -z "$left" ] || fail "--uninstall left: $left"

# --desktop: the desktop's files too, starting the installed command; --uninstall removes them as well.
export XDG_DATA_HOME="$prefix/xdg-data" XDG_CONFIG_HOME="$prefix/xdg-config"
OPENSPOTLIGHT_BUILD_CONFIGURATION=debug scripts/install.sh --desktop "$prefix" > "$prefix.log" 2>&1 || { cat "$prefix.log" >&2; fail "install.sh --desktop exited $?"; }
rm -f "$prefix.log"
service="$XDG_DATA_HOME/dbus-1/services/org.openspotlight.SearchProvider.service"
grep -qx "Exec=$prefix/bin/spotlight serve --dbus" "$service" || fail "the D-Bus service does not start the installed command: $(cat "$service")"
[ -f "$XDG_DATA_HOME/gnome-shell/search-providers/org.openspotlight.SearchProvider.ini" ] || fail "no GNOME Shell provider file"
[ -f "$XDG_DATA_HOME/krunner/dbusplugins/org.openspotlight.SearchProvider.desktop" ] || fail "no KRunner plugin file"
desktop-file-validate "$XDG_DATA_HOME/applications/org.openspotlight.Spotlight.desktop" || fail "the Spotlight desktop entry is invalid"
scripts/install.sh --uninstall "$prefix" > /dev/null
left="$(find "$prefix" -type f)"
[ -z "$left" ] || fail "--uninstall after --desktop left: $left"
echo "test-install: 2 passed, 0 failed"
