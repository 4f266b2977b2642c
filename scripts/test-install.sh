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
echo "test-install: 1 passed, 0 failed"
