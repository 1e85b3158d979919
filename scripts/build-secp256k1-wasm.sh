#!/usr/bin/env bash
# Builds shared/bitcoin/wasm/secp256k1.wasm: libsecp256k1 (Debian's source package, checked against its SHA-256)
# compiled to WebAssembly with clang, behind the small ABI in shared/bitcoin/wasm/secp256k1-abi.c (which includes
# the library's secp256k1.c: one translation unit).
#
# Not part of `npm install` or CI: the built file is committed, as a package ships its .wasm. Run this to change
# the build or the library version, then commit the new file; the same inputs give the same bytes (README there).
#
# Needs Debian 12 (bookworm) with root for apt-get: clang-14, lld-14, wasi-libc (headers and memcpy/memset) and
# the wasm32 compiler runtime.
set -euo pipefail

VERSION=0.2.0
SOURCE_SHA256=07c1d76fc485936138c6572e94374df22ba41df06617926572b8a690fe8bc34b
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/shared/bitcoin/wasm/secp256k1.wasm"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

need=()
for pkg in clang-14 lld-14 wasi-libc libclang-rt-14-dev-wasm32; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if ((${#need[@]})); then
  echo "installing ${need[*]}" >&2
  apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null
fi

# The source package through apt, from the Debian archive this machine is set up with: its deb lists turned into
# deb-src lists in a folder of our own (nothing system-wide changes).
mkdir -p "$work/sources.d" "$work/lists/partial"
for list in /etc/apt/sources.list.d/*.sources; do
  sed 's/^Types: deb$/Types: deb-src/' "$list" >"$work/sources.d/$(basename "$list")"
done
apt_opts=(-o APT::Sandbox::User=root -o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$work/sources.d" -o "Dir::State::Lists=$work/lists")
apt-get "${apt_opts[@]}" update -qq
(cd "$work" && apt-get "${apt_opts[@]}" source --download-only "libsecp256k1=$VERSION-2" >/dev/null 2>&1)
echo "$SOURCE_SHA256  $work/libsecp256k1_$VERSION.orig.tar.xz" | sha256sum -c --quiet
tar -xf "$work/libsecp256k1_$VERSION.orig.tar.xz" -C "$work"
src="$work/libsecp256k1-$VERSION"

# USE_FORCE_WIDEMUL_INT64: 10x26 field and 8x32 scalar limbs. WebAssembly multiplies 64-bit integers natively but
# has no 64x64->128 product, so the default 5x52 field calls a compiler-runtime helper for each limb product
# (tiny-secp256k1's build does: ~3.5x slower verifies). --stack-first: a stack overflow traps instead of
# overwriting the precomputed tables.
clang-14 --target=wasm32-wasi -isystem /usr/include/wasm32-wasi -O3 \
  -DENABLE_MODULE_RECOVERY=1 -DENABLE_MODULE_EXTRAKEYS=1 -DENABLE_MODULE_SCHNORRSIG=1 \
  -DUSE_FORCE_WIDEMUL_INT64=1 -DECMULT_WINDOW_SIZE=15 -DECMULT_GEN_PREC_BITS=4 -DUSE_EXTERNAL_DEFAULT_CALLBACKS=1 \
  -I"$src/include" -I"$src/src" -I"$src" -Wno-unused-function \
  -nostartfiles -L/usr/lib/wasm32-wasi \
  -Wl,--no-entry -Wl,--stack-first -Wl,-z,stack-size=262144 -Wl,--strip-all \
  -Wl,--export=HASH_INPUT -Wl,--export=SIGNATURE_INPUT -Wl,--export=PUBLIC_KEY_INPUT \
  -Wl,--export=X_ONLY_PUBLIC_KEY_INPUT -Wl,--export=DATA_INPUT -Wl,--export=DIGEST_OUTPUT \
  -o "$out" "$root/shared/bitcoin/wasm/secp256k1-abi.c" \
  "$src/src/precomputed_ecmult.c" "$src/src/precomputed_ecmult_gen.c" 2>"$work/log" ||
  { cat "$work/log" >&2; exit 1; }
chmod 644 "$out"
cp "$src/COPYING" "$root/shared/bitcoin/wasm/COPYING"
sha256sum "$out" | sed "s|$root/||"
