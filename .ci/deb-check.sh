#!/usr/bin/env bash
# Builds the Debian package and checks what it holds by extracting it into a temporary root
# (dpkg-deb -x), without installing it on the machine: the binary runs and names its version,
# the man page renders, the completions, README, licenses and example config are where Debian
# keeps them. The package is built from the dev profile without features (the release's code
# and features, unoptimised: it reuses the dependencies CI's earlier steps built, so the check
# costs the workspace's own crates only); `cargo deb` alone builds the shipped release.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v cargo-deb >/dev/null 2>&1; then
  cargo install cargo-deb --locked --quiet
fi
cargo build --locked
bash scripts/deb-assets.sh target/debug/convo
rm -f target/debian/convo_*.deb
# cargo deb reads the assets' target/release/ as the profile's own directory.
cargo deb --no-build --locked --profile dev --fast --output target/debian/
deb=$(ls target/debian/convo_*.deb)
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
dpkg-deb -x "$deb" "$root"
dpkg-deb -I "$deb" | sed -n '1,12p'
fail() { echo "deb-check: $*" >&2; exit 1; }
version=$("$root/usr/bin/convo" --version)
echo "$version"
[[ "$version" =~ ^convo\ [0-9]+\.[0-9]+\.[0-9]+\ \( ]] || fail "convo --version said: $version"
for f in usr/share/man/man1/convo.1.gz \
         usr/share/bash-completion/completions/convo \
         usr/share/zsh/vendor-completions/_convo \
         usr/share/fish/vendor_completions.d/convo.fish \
         usr/share/doc/convo/README.md \
         usr/share/doc/convo/LICENSE-MIT \
         usr/share/doc/convo/LICENSE-APACHE \
         usr/share/doc/convo/copyright \
         usr/share/doc/convo/examples/config.example.toml; do
  [ -s "$root/$f" ] || fail "missing or empty: /$f"
done
if command -v man >/dev/null 2>&1; then
  MANWIDTH=80 man -l "$root/usr/share/man/man1/convo.1.gz" 2>/dev/null | grep -q "convo" \
    || fail "man -l cannot render the page"
else
  zcat "$root/usr/share/man/man1/convo.1.gz" | grep -q '^\.TH convo 1' || fail "not a man page"
fi
grep -q "complete" "$root/usr/share/bash-completion/completions/convo" || fail "bash completion"
# The shipped binary carries no test fault: the demo server's fault switches and the
# runtime's test switches are compiled only with the `testing` feature (cargo test).
for w in gzip-bomb zstd-bomb fail-always fail-first reset-mid-body echo-key cursor-loop \
         wrong-shape "for testing" CONVO_TEST_PANIC; do
  if grep -a -q -- "$w" "$root/usr/bin/convo"; then fail "the packaged binary names the test switch '$w'"; fi
done
if "$root/usr/bin/convo" demo-server --help | grep -qi "for testing"; then
  fail "convo demo-server --help lists test switches"
fi
echo "deb-check: $deb holds the binary, man page, completions, README, licenses and example config"
