#!/usr/bin/env bash
# Installs the `spotlight` command: a release build, its man page (swift-argument-parser's generate-manual plugin)
# and bash, zsh and fish completions, each where its tool looks.
#
#   scripts/install.sh [PREFIX]               PREFIX defaults to ~/.local
#   scripts/install.sh --desktop [PREFIX]     …and puts Spotlight into the desktop's search: the D-Bus service that
#                                             starts GNOME Shell's and KRunner's providers, their files, and the
#                                             Spotlight desktop entry (`spotlight desktop install`; see System.md)
#   scripts/install.sh --uninstall [PREFIX]   removes what an install put there (the desktop's files too)
#
#   PREFIX/bin/spotlight
#   PREFIX/share/man/man1/spotlight.1
#   PREFIX/share/bash-completion/completions/spotlight
#   PREFIX/share/zsh/site-functions/_spotlight
#   PREFIX/share/fish/vendor_completions.d/spotlight.fish
#
# OPENSPOTLIGHT_BUILD_CONFIGURATION=debug builds faster (the test script uses it).
set -euo pipefail
cd "$(dirname "$0")/.."

uninstall=false
desktop=false
while [ $# -gt 0 ]; do
    case "$1" in
        --uninstall) uninstall=true; shift ;;
        --desktop) desktop=true; shift ;;
        *) break ;;
    esac
done
prefix="${1:-${HOME:?HOME is not set}/.local}"
case "$prefix" in /*) ;; *) prefix="$PWD/$prefix" ;; esac
files=(
    "$prefix/bin/spotlight"
    "$prefix/share/man/man1/spotlight.1"
    "$prefix/share/bash-completion/completions/spotlight"
    "$prefix/share/zsh/site-functions/_spotlight"
    "$prefix/share/fish/vendor_completions.d/spotlight.fish"
)

if $uninstall; then
    if [ -x "$prefix/bin/spotlight" ]; then "$prefix/bin/spotlight" desktop uninstall; fi
    for file in "${files[@]}"; do
        if [ -e "$file" ]; then rm -f "$file" && echo "removed $file"; fi
    done
    exit 0
fi

source scripts/bootstrap.sh
config="${OPENSPOTLIGHT_BUILD_CONFIGURATION:-release}"
echo "install: building spotlight ($config)…" >&2
swift build -c "$config" --product spotlight >&2
binary="$(swift build -c "$config" --show-bin-path)/spotlight"

echo "install: generating the man page…" >&2
swift package plugin generate-manual --configuration "$config" >&2
manual=".build/plugins/GenerateManual/outputs/spotlight/spotlight.1"
[ -f "$manual" ] || { echo "install: the man page was not generated at $manual" >&2; exit 1; }

install -d -m 0755 "$prefix/bin" "$prefix/share/man/man1" "$prefix/share/bash-completion/completions" \
    "$prefix/share/zsh/site-functions" "$prefix/share/fish/vendor_completions.d"
install -m 0755 "$binary" "$prefix/bin/spotlight"
install -m 0644 "$manual" "$prefix/share/man/man1/spotlight.1"
"$binary" --generate-completion-script bash > "$prefix/share/bash-completion/completions/spotlight"
"$binary" --generate-completion-script zsh > "$prefix/share/zsh/site-functions/_spotlight"
"$binary" --generate-completion-script fish > "$prefix/share/fish/vendor_completions.d/spotlight.fish"
for file in "${files[@]}"; do echo "installed $file"; done
case ":$PATH:" in *":$prefix/bin:"*) ;; *) echo "install: add $prefix/bin to PATH to run spotlight" >&2 ;; esac
if $desktop; then
    "$prefix/bin/spotlight" desktop install
fi
