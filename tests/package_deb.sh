#!/usr/bin/env bash
# The Debian package as docs/install.md describes it: cpack makes it from the build, dpkg-deb
# shows the dependencies (only the C library; CUDA's libraries suggested, never required), the
# files sit where the installed scripts look for them, and lintian finds no error or warning
# and no information tag beyond the ones docs/install.md explains.
#   package_deb.sh BUILD_DIR SOURCE_DIR     exit 77 (skipped) without cpack or dpkg-deb
set -euo pipefail
build=$1 source=$2
for tool in cpack dpkg-deb; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool not found"; exit 77; }
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

(cd "$build" && cpack -G DEB -B "$out" >"$out/cpack.log" 2>&1) || { cat "$out/cpack.log"; fail "cpack -G DEB"; }
deb=$(ls "$out"/*.deb)
[ "$(echo "$deb" | wc -l)" = 1 ] || fail "cpack made more than one package: $deb"
info=$(dpkg-deb -I "$deb")
echo "$info" | grep -E '^ (Package|Version|Depends|Suggests):'
package=$(dpkg-deb -f "$deb" Package)
depends=$(dpkg-deb -f "$deb" Depends)
[[ $depends =~ ^libc6\ \(\>=\ [0-9.]+\)$ ]] || fail "Depends is not the C library alone: $depends"
if [ "$package" = gpubench ]; then
  suggests=$(dpkg-deb -f "$deb" Suggests)
  for lib in libcuda1 libcublas libcudnn9 libnccl2; do
    [[ $suggests == *"$lib"* ]] || fail "Suggests lacks $lib: $suggests"
  done
fi
files=$(dpkg-deb -c "$deb" | awk '{print $NF}')
for path in ./usr/bin/gpubench ./usr/share/gpubench/configs/tolerance.json \
            ./usr/share/gpubench/configs/baselines/h200.json ./usr/share/gpubench/configs/acceptance/h200.json \
            ./usr/share/gpubench/scripts/nightly.sh ./usr/share/man/man1/gpubench.1.gz \
            "./usr/share/doc/$package/copyright" "./usr/share/doc/$package/changelog.gz"; do
  grep -qxF "$path" <<<"$files" || fail "the package lacks $path"
done

if ! command -v lintian >/dev/null; then
  echo "lintian not found: its findings were not checked"
  exit 0
fi
lintian --pedantic --display-info "$deb" >"$out/lintian.txt" 2>&1 || true
cat "$out/lintian.txt"
if grep -E '^[EW]: ' "$out/lintian.txt"; then fail "lintian reports an error or a warning"; fi
# Every information tag must be one docs/install.md explains in its lintian table.
explained=$(grep -oE '^\| `[a-z0-9-]+( [^`]+)?`' "$source/docs/install.md" | sed -E 's/^\| `(.*)`/\1/')
while read -r tag detail; do
  [ -z "$tag" ] && continue
  grep -qxF "$tag" <<<"$explained" || grep -qxF "$tag $detail" <<<"$explained" ||
    fail "lintian tag not explained in docs/install.md: $tag $detail"
done < <(sed -nE 's/^[IPX]: [^ :]+( \([a-z]+\))?: ([a-z0-9-]+)( ([^ []+))?.*/\2 \4/p' "$out/lintian.txt")
echo "package: $(basename "$deb"), Depends: $depends, lintian: nothing unexplained"
