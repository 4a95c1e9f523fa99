#!/bin/bash
# Tests of the installed tool (README "Install"): it runs from any directory, finds its shipped configs relative to
# its own location (also after the whole prefix is moved), names its git revision, and CPack packages it as a .deb.
# Usage: installed_tool.sh CASE BUILD_DIR SOURCE_DIR     (CASE: tree | deb)
set -u
case_name=$1 build=$2 source=$3
expect=$(dirname "$(readlink -f "$0")")/expect_exit.sh
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAILED: $*"; exit 1; }

case $case_name in
  tree)
    cmake --install "$build" --prefix "$dir/prefix" >"$dir/install.log" || { cat "$dir/install.log"; fail "cmake --install"; }
    mkdir "$dir/elsewhere" && cd "$dir/elsewhere" || exit 1
    maeri=$dir/prefix/bin/maeri
    [[ -f $dir/prefix/share/maeri/configs/hardware/maeri-64.yaml ]] || fail "configs not installed under share/maeri"
    ls "$dir"/prefix/share/doc/*/README.md >/dev/null 2>&1 || fail "README not installed under share/doc"
    # The revision the tool names must be the source tree's own (git describe, as cli/write_version.cmake runs it).
    if git -C "$source" rev-parse >/dev/null 2>&1; then
      revision=$(git -C "$source" describe --always --dirty --abbrev=12)
      "$expect" 0 --stdout-contains "(git $revision)" "$maeri" --version || exit 1
    fi
    # The main job with its shipped defaults, from a directory that holds nothing of the toolkit.
    "$expect" 0 --stdout-contains "network tiny: PASS" "$maeri" run --json run.json || exit 1
    [[ -s run.json ]] || fail "maeri run wrote no JSON"
    "$expect" 0 --stdout-contains "mappings evaluated per second" "$maeri" bench --help || exit 1
    "$expect" 0 --stdout-contains "<shipped configs>/hardware/maeri-64.yaml" "$maeri" run --help || exit 1
    # The Python module, where Debian's python3 looks under the prefix (lib/python3/dist-packages), imported from
    # this directory, maps with the installed configs.
    if ls "$build"/python/maeri.*.so >/dev/null 2>&1; then
      site=$dir/prefix/lib/python3/dist-packages
      ls "$site"/maeri.*.so >/dev/null 2>&1 || fail "the Python module is not installed under lib/python3/dist-packages"
      PYTHONPATH=$site python3 -c "
import maeri
best = maeri.map('$dir/prefix/share/maeri/configs/hardware/maeri-64.yaml',
                 '$dir/prefix/share/maeri/configs/workloads/tiny.yaml')
assert best[0]['best'][0]['cycles']['total'] > 0, best[0]
print('python module: tiny maps,', len(best), 'layers')
# Its RTL run is the installed maeri's, beside the module (not the build tree's).
assert maeri.executable() == '$dir/prefix/bin/maeri', maeri.executable()" ||
        fail "the installed Python module does not import or map, or runs another maeri than the prefix's"
    fi
    # Relocatable: a moved prefix still finds its configs; nothing points back into the build or source tree.
    mv "$dir/prefix" "$dir/moved"
    "$expect" 0 --stdout-contains "layer conv1" "$dir/moved/bin/maeri" map --layer conv1 \
      --hardware "$dir/moved/share/maeri/configs/hardware/maeri-64.yaml" \
      --workload "$dir/moved/share/maeri/configs/workloads/tiny.yaml" -o m.yaml || exit 1
    "$expect" 0 --stdout-contains "network tiny: PASS" "$dir/moved/bin/maeri" run || exit 1
    # A wrong explicit setting is an error, not a silent fallback; a prefix without configs says where it looked.
    "$expect" 2 --stderr-contains "MAERI_CONFIG_DIR" env MAERI_CONFIG_DIR="$dir/none" "$dir/moved/bin/maeri" run || exit 1
    rm -rf "$dir/moved/share/maeri"
    "$expect" 2 --stderr-contains "shipped configs" "$dir/moved/bin/maeri" run || exit 1
    ;;
  deb)
    command -v dpkg-deb >/dev/null || fail "dpkg-deb not found"
    (cd "$build" && cpack -G DEB -B "$dir" >"$dir/cpack.log" 2>&1) || { cat "$dir/cpack.log"; fail "cpack"; }
    deb=$(ls "$dir"/*.deb 2>/dev/null | head -1)
    [[ -n $deb ]] || fail "cpack wrote no .deb"
    contents=$(dpkg-deb -c "$deb")
    for path in ./usr/bin/maeri ./usr/share/maeri/configs/hardware/maeri-64.yaml ./usr/share/maeri/configs/workloads/tiny.yaml; do
      grep -q " $path\$" <<<"$contents" || fail "$path missing from $(basename "$deb")"
    done
    if ls "$build"/python/maeri.*.so >/dev/null 2>&1; then
      grep -qE " ./usr/lib/python3/dist-packages/maeri\.cpython-[^ ]+\.so\$" <<<"$contents" ||
        fail "the Python module is missing from $(basename "$deb") (./usr/lib/python3/dist-packages)"
    fi
    # dpkg-shlibdeps turned the binary's shared libraries into package dependencies.
    depends=$(dpkg-deb -f "$deb" Depends)
    for library in libsystemc libyaml-cpp libtbb; do
      grep -q "$library" <<<"$depends" || fail "Depends lacks $library: $depends"
    done
    echo "$(basename "$deb"): Depends: $depends"
    ;;
  *) fail "unknown case $case_name" ;;
esac
echo PASS
