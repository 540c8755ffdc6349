#!/usr/bin/env bash
# Makes what the Debian package installs besides the binary: the man page and the bash, zsh and
# fish completions, from the clap definitions of the binary given (default: the release one).
# Then `cargo deb --no-build` (or plain `cargo deb`) packs them; see [package.metadata.deb].
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release/convo}
out=target/deb-assets
mkdir -p "$out"
"$bin" man | gzip -9n > "$out/convo.1.gz"
"$bin" completions bash > "$out/convo.bash"
"$bin" completions zsh > "$out/_convo"
"$bin" completions fish > "$out/convo.fish"
echo "deb assets in $out"
