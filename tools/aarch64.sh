#!/usr/bin/env bash
# The test suite on aarch64, the board's instruction set, under qemu-user: Debian's own
# Python and NumPy (bookworm: Python 3.11, NumPy 1.24) in an arm64 root, the native kernel
# library cross-compiled with Debian's gcc-aarch64-linux-gnu: the whole suite with the
# native kernels, then (native off) the test modules of the parts that compute with NumPy
# where the native kernels are not there (NUMPY_PATH_TESTS below: NumPy's own casts and
# rounding are what the board runs then); both with pytest-xdist over two processes.
#
#   tools/aarch64.sh [--rebuild] [-- PYTEST_ARGS...]
#
# Needs (Debian host, as root for debootstrap): debootstrap, qemu-user-static,
# gcc-aarch64-linux-gnu, python3 with venv. The root is built once and cached outside the
# repository under ${XDG_CACHE_HOME:-$HOME/.cache}/tidl-io/ (TIDL_IO_AARCH64_CACHE to move
# it), keyed by a hash of the release, mirror and package lists:
#   - `debootstrap --foreign --arch=arm64` downloads the packages and unpacks the essential
#     ones; the rest (python3, python3-numpy, python3-yaml and their dependencies) are
#     unpacked here with dpkg-deb, since the second stage (which needs to run arm64 code as
#     root in a chroot) never runs. Their `update-alternatives --install` links (libblas.so.3,
#     liblapack.so.3, without which NumPy does not import) are made from the packages'
#     postinst scripts.
#   - The mirror and release come from this machine's apt sources at run time (the entry
#     whose suite is this machine's release), never from this file;
#     TIDL_IO_AARCH64_MIRROR / TIDL_IO_AARCH64_SUITE override them.
#   - The test dependencies are installed with the host's pip for the root's Python
#     (`--platform manylinux2014_aarch64 --only-binary=:all:`: hypothesis ships a native
#     part), pinned below; the standard library and them are byte-compiled under qemu once.
# The root's Python runs as `qemu-aarch64-static -L ROOT`, through a small launcher inside
# the root (ROOT/usr/bin/qemu-python3) that is also sys.executable, so tests that start
# Python subprocesses get aarch64 Python too, without binfmt_misc. With -L, absolute paths
# that exist inside the root are taken from it and all others from the host: the root
# keeps only etc/ and usr/ (no tmp/, var/, root/, ...), so the repository, ../shared and
# temporary folders are the host's own. The suite runs in a temporary copy of the working
# tree (../shared linked beside it) into which the aarch64 library is built; the emulated
# runs are ~10x slower, which TIDL_IO_TEST_TIME_SCALE=10 tells the few timing tests.
# CC=aarch64-linux-gnu-gcc: tests that compile C (the TIDL-RT stand-in) build aarch64
# libraries that the emulated Python loads; the x86 cross compiler itself runs natively.
#
# Prints the versions, then each run's test count and time; exits non-zero when a run
# fails, collects no tests, or the native library did not load in the native-on run.
set -euo pipefail

DEB_PACKAGES=(python3 python3-numpy python3-yaml)
PIP_PACKAGES=(pytest==9.2.0 hypothesis==6.170.15 construct==2.10.70 pytest-xdist==3.8.0 execnet==2.1.2)
# The parts whose results come from NumPy arithmetic when TIDL_IO_NATIVE=0 (pack/unpack,
# quantization, rearrangement, comparison sums, the runtimes' data movement, the emulator).
# The other modules (readers, reports, CLI) run the same Python whichever path is active, and
# the native-on run covers them on aarch64. A name here that matches no file fails the stage.
NUMPY_PATH_TESTS=(test_native test_buffers test_plan test_quant test_permute test_reorg test_blocked
    test_padding test_details test_detection test_tensor test_geometry test_trace_metrics
    test_trace_calibration test_trace_compare test_crosscheck test_runtime_mock test_runtime_datamove
    test_session test_runner test_emulator_kernels test_emulator_run)
ROOT_LAYOUT=1  # bump when the way the root is built below changes

REPO=$(cd "$(dirname "$0")/.." && pwd)
CACHE_BASE=${TIDL_IO_AARCH64_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tidl-io}
REBUILD=0
PYTEST_ARGS=()
while [ $# -gt 0 ]; do
    case $1 in
        --rebuild) REBUILD=1 ;;
        --) shift; PYTEST_ARGS=("$@"); break ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "aarch64.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done

die() { echo "aarch64.sh: $*" >&2; exit 1; }
now() { date +%s; }

need_tools() {
    local missing=() tool
    for tool in debootstrap qemu-aarch64-static aarch64-linux-gnu-gcc dpkg-deb python3; do
        command -v "$tool" >/dev/null || missing+=("$tool")
    done
    [ ${#missing[@]} -eq 0 ] || die "missing on this machine: ${missing[*]} (apt-get install debootstrap" \
        "qemu-user-static gcc-aarch64-linux-gnu)"
}

apt_entries() {  # print "URI SUITE ARCHITECTURES" for every enabled deb entry of the apt sources
    local f
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] || continue
        awk '$1 == "deb" {
                 arch = "-"; i = 2
                 if ($2 ~ /^\[/) {
                     for (; i <= NF; i++) {
                         if ($i ~ /^\[?arch=/) { arch = $i; sub(/^\[?arch=/, "", arch); sub(/\]$/, "", arch) }
                         if ($i ~ /\]$/) { i++; break }
                     }
                 }
                 print $i, $(i + 1), arch
             }' "$f"
    done
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        awk 'function flush() {
                 if (types ~ /(^| )deb( |$)/ && enabled != "no" && uri != "")
                     for (s = 1; s <= nsuites; s++) print uri, suites[s], (arch == "" ? "-" : arch)
                 types = uri = arch = enabled = ""; nsuites = 0
             }
             /^#/ { next }
             /^[ \t]*$/ { flush(); next }
             { key = tolower($1); sub(/:$/, "", key) }
             key == "types" { types = $0; sub(/^[^:]*:[ \t]*/, "", types) }
             key == "uris" { uri = $2 }
             key == "suites" { nsuites = 0; for (i = 2; i <= NF; i++) suites[++nsuites] = $i }
             key == "architectures" { arch = $2; for (i = 3; i <= NF; i++) arch = arch "," $i }
             key == "enabled" { enabled = tolower($2) }
             END { flush() }' "$f"
    done
}

pick_mirror() {  # sets MIRROR and SUITE
    MIRROR=${TIDL_IO_AARCH64_MIRROR:-}
    SUITE=${TIDL_IO_AARCH64_SUITE:-}
    [ -n "$MIRROR" ] && [ -n "$SUITE" ] && return
    local codename="" uri suite arch
    codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}") || true
    local candidates=()
    while read -r uri suite arch; do
        case $suite in *-*|*/*) continue ;; esac               # -updates, -security, -backports
        [ -e "/usr/share/debootstrap/scripts/$suite" ] || continue   # a release debootstrap knows
        case ",$arch," in ,-,|*,arm64,*) ;; *) continue ;; esac
        [ -n "$SUITE" ] && [ "$suite" != "$SUITE" ] && continue
        candidates+=("$uri $suite")
        [ "$suite" = "$codename" ] && { candidates=("$uri $suite"); break; }
    done < <(apt_entries)
    [ ${#candidates[@]} -gt 0 ] || die "no Debian release in this machine's apt sources" \
        "(/etc/apt/sources.list, sources.list.d/); set TIDL_IO_AARCH64_MIRROR and TIDL_IO_AARCH64_SUITE"
    read -r uri suite <<<"${candidates[0]}"
    MIRROR=${MIRROR:-$uri}
    SUITE=${SUITE:-$suite}
}

build_root() {  # build_root DIR: the arm64 root in DIR/root, test dependencies in DIR/site
    local dir=$1 root=$1/root start
    [ "$(id -u)" -eq 0 ] || die "debootstrap needs root to build the arm64 root (run as root once;" \
        "the result is cached in $CACHE_BASE)"
    mkdir -p "$dir"
    start=$(now)
    echo "aarch64: debootstrap --foreign --arch=arm64 $SUITE (+ ${DEB_PACKAGES[*]}) ..."
    if ! debootstrap --foreign --arch=arm64 --variant=minbase \
            --include="$(IFS=,; echo "${DEB_PACKAGES[*]}")" "$SUITE" "$root" "$MIRROR" \
            >"$dir/debootstrap.log" 2>&1; then
        tail -n 20 "$dir/debootstrap.log" >&2
        die "debootstrap failed (log above)"
    fi
    # Unpack what the second stage would have installed, and make its alternatives links.
    local pkg deb link target
    for pkg in $(cat "$root/debootstrap/base"); do
        deb=$root$(awk -v p="$pkg" '$1 == p { print $2 }' "$root/debootstrap/debpaths")
        [ -f "$deb" ] || die "debootstrap left no .deb for $pkg"
        dpkg-deb --fsys-tarfile "$deb" | tar -x --keep-directory-symlink -C "$root" -f -
        dpkg-deb -I "$deb" postinst 2>/dev/null \
            | sed -e ':a' -e '/\\$/{N;s/\\\n//;ba}' \
            | awk '$1 == "update-alternatives" && $2 == "--install" { print $3, $5 }' \
            | while read -r link target; do
                  [ -e "$root$link" ] || ln -s "$target" "$root$link"   # made relative below
              done
    done
    for deb in "$root"/var/cache/apt/archives/*.deb; do
        dpkg-deb -f "$deb" Package Version | paste -sd' '
    done | sort >"$dir/packages.txt"
    # Keep only etc/ and usr/ (and the merged-/usr links): every other absolute path the
    # tests touch (/tmp, /root, /dev, ...) must be the host's under qemu -L.
    local entry
    for entry in "$root"/* "$root"/.[!.]*; do
        [ -e "$entry" ] || [ -L "$entry" ] || continue
        case ${entry##*/} in etc|usr) ;; bin|lib|sbin|lib64) [ -L "$entry" ] || die "$entry is not a link" ;;
            *) rm -rf "$entry" ;; esac
    done
    # Absolute links would point into the host under qemu -L: make them relative.
    find "$root" -type l -lname '/*' -print0 | while IFS= read -r -d '' link; do
        ln -sfnr "$root$(readlink "$link")" "$link"
    done
    echo "aarch64: root unpacked ($(wc -l <"$dir/packages.txt") packages) in $(($(now) - start)) s"

    cat >"$root/usr/bin/qemu-python3" <<'EOF'
#!/bin/sh
# The root's Python under qemu-user; also its sys.executable (subprocesses run aarch64 too).
root=$(cd "$(dirname "$0")/../.." && pwd)
exec qemu-aarch64-static -L "$root" -0 "$0" "$root"/usr/bin/python3 "$@"
EOF
    chmod +x "$root/usr/bin/qemu-python3"
    local py=$root/usr/bin/qemu-python3 pyver
    pyver=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])') \
        || die "the root's python3 does not start under qemu"

    start=$(now)
    python3 -m venv "$dir/pip-venv"
    "$dir/pip-venv/bin/pip" install -q --disable-pip-version-check --no-compile --target "$dir/site" \
        --platform manylinux2014_aarch64 --python-version "$pyver" --implementation cp \
        --abi "cp${pyver/./}" --only-binary=:all: "${PIP_PACKAGES[@]}"
    rm -rf "$dir/pip-venv"
    # Byte-compile once (CI sets PYTHONDONTWRITEBYTECODE; every start would recompile).
    env -u PYTHONDONTWRITEBYTECODE "$py" -m compileall -q -j 2 "$root/usr/lib/python$pyver" \
        "$root/usr/lib/python3/dist-packages" "$dir/site" >/dev/null
    echo "aarch64: test dependencies installed and byte-compiled in $(($(now) - start)) s"
}

root_dir() {  # the cached root for this release, mirror and package lists; built when missing
    local key dir
    key=$(printf '%s\n' "$ROOT_LAYOUT" "$SUITE" "$MIRROR" "${DEB_PACKAGES[@]}" "${PIP_PACKAGES[@]}" \
        | sha256sum | cut -c1-16)
    dir=$CACHE_BASE/aarch64-$SUITE-$key
    if [ "$REBUILD" -eq 1 ] && [ -d "$dir" ]; then
        rm -rf "$dir"
    fi
    if [ ! -f "$dir/ready" ]; then
        mkdir -p "$CACHE_BASE"
        local tmp
        tmp=$(mktemp -d "$CACHE_BASE/.aarch64-build.XXXXXX")
        trap 'rm -rf "$tmp"' EXIT
        build_root "$tmp" >&2
        touch "$tmp/ready"
        rm -rf "$dir"
        mv -T "$tmp" "$dir" 2>/dev/null || rm -rf "$tmp"   # a concurrent build got there first
        trap - EXIT
        # Older roots (other package lists or releases) are not needed any more.
        local old
        for old in "$CACHE_BASE"/aarch64-*; do
            [ "$old" = "$dir" ] || rm -rf "$old"
        done
    else
        echo "aarch64: cached root $dir" >&2
    fi
    echo "$dir"
}

run_suite() {  # run_suite LABEL VAR=VALUE... [-- TESTS...]: pytest under qemu -> WORK/LABEL.{log,result,failed}
    local label=$1 log=$WORK/$1.log start rc summary passed
    shift
    local envs=() tests=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs+=("$1"); shift; done
    [ $# -gt 0 ] && { shift; tests=("$@"); }
    start=$(now)
    set +e
    (cd "$COPY" && env -u PYTHONHOME -u TIDL_IO_NATIVE -u TIDL_IO_NATIVE_LIB -u TIDL_IO_REQUIRE_NATIVE "${envs[@]}" \
        CC=aarch64-linux-gnu-gcc PYTHONNOUSERSITE=1 PYTHONPATH="$COPY:$SITE" TIDL_IO_TEST_TIME_SCALE=10 \
        "$PY" -m pytest -q -p no:cacheprovider -n "$JOBS" --dist loadfile --basetemp "$WORK/tmp-$label" \
        "${PYTEST_ARGS[@]}" "${tests[@]}") >"$log" 2>&1
    rc=$?
    set -e
    summary=$( (grep -E '(passed|failed|errors?|no tests ran).* in [0-9.]+s' "$log" || true) | tail -n 1 \
        | tr -d '=' | sed -E 's/^ +| +$//g')
    passed=$( (grep -oE '[0-9]+ passed' <<<"$summary" || echo 0) | grep -oE '[0-9]+')
    printf 'aarch64 %-11s %5d tests passed in %4d s (pytest: %s)\n' "$label:" "$passed" \
        $(($(now) - start)) "${summary:-no summary line}" >"$WORK/$label.result"
    if [ "$rc" -eq 5 ] || [ "$passed" -eq 0 ]; then
        echo "$label: pytest collected or passed no tests (exit $rc)" >"$WORK/$label.failed"
    elif [ "$rc" -ne 0 ]; then
        echo "$label: pytest failed (exit $rc)" >"$WORK/$label.failed"
    elif [ -d "$REPO/../shared/realdata" ] && grep -q "realdata not present" "$log"; then
        echo "$label: ../shared/realdata is present but the real-file tests skipped" >"$WORK/$label.failed"
    fi
}

need_tools
pick_mirror
echo "aarch64: Debian $SUITE for arm64, mirror from this machine's apt sources"
STAGE_START=$(now)
DIR=$(root_dir)
PY=$DIR/root/usr/bin/qemu-python3
SITE=$DIR/site
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tidl-io-aarch64.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

env -u PYTHONHOME PYTHONNOUSERSITE=1 PYTHONPATH="$SITE" "$PY" -c '
import platform, sys, numpy, yaml, pytest, hypothesis, construct
print(f"aarch64: {platform.machine()} Python {platform.python_version()}, NumPy {numpy.__version__},",
      f"PyYAML {yaml.__version__}, construct {construct.__version__}, pytest {pytest.__version__},",
      f"hypothesis {hypothesis.__version__}")'

# The runs use a copy of the working tree (tracked and untracked files, not the ignored ones
# such as a host build of the library), with ../shared beside it, and the aarch64 library
# built into it where the loader looks first: the repository itself is left untouched.
COPY=$WORK/tidl-io
mkdir -p "$COPY"
if git -C "$REPO" rev-parse --git-dir >/dev/null 2>&1; then
    (cd "$REPO" && git ls-files -z -co --exclude-standard | tar -c --null -T - -f -) | tar -x -C "$COPY" -f -
else
    tar -c -C "$REPO" --exclude=.venv --exclude=.git --exclude='*.so' --exclude=__pycache__ -f - . \
        | tar -x -C "$COPY" -f -
fi
[ -d "$REPO/../shared" ] && ln -s "$(cd "$REPO/../shared" && pwd)" "$WORK/shared"
echo "aarch64: cross-compiling the native library with aarch64-linux-gnu-gcc"
python3 "$COPY/tools/build_native.py" --cc aarch64-linux-gnu-gcc --out "$COPY/tidl_io/native" >/dev/null
LIB=$COPY/tidl_io/native/libtidl_io_native.so
(cd "$COPY" && env -u PYTHONHOME -u TIDL_IO_NATIVE -u TIDL_IO_NATIVE_LIB PYTHONNOUSERSITE=1 \
    PYTHONPATH="$COPY:$SITE" TIDL_IO_REQUIRE_NATIVE=1 "$PY" -c '
import sys, tidl_io
info = tidl_io.native_info()
print("aarch64: native", info)
assert info["active"] and info["path"] == sys.argv[1], info' "$LIB") \
    || die "the cross-compiled native library does not load under qemu"

# pytest-xdist spreads each run's test modules over the cores (qemu-user runs each process's
# code on one host thread; the workers are the emulated Python too, through sys.executable).
JOBS=${TIDL_IO_AARCH64_JOBS:-$(nproc)}
[ "$JOBS" -le 4 ] || JOBS=4
OFF_TESTS=()
for name in "${NUMPY_PATH_TESTS[@]}"; do
    [ -f "$COPY/tests/$name.py" ] || die "NUMPY_PATH_TESTS names tests/$name.py, which does not exist"
    OFF_TESTS+=("tests/$name.py")
done
echo "aarch64: the suite under qemu with the native kernels, then ${#OFF_TESTS[@]} modules without ($JOBS processes) ..."
run_suite native-on TIDL_IO_REQUIRE_NATIVE=1
run_suite native-off TIDL_IO_NATIVE=0 -- "${OFF_TESTS[@]}"
status=0
for label in native-on native-off; do
    echo
    case $label in
        native-on) echo "---- aarch64 native on (TIDL_IO_REQUIRE_NATIVE=1) ----" ;;
        native-off) echo "---- aarch64 native off (TIDL_IO_NATIVE=0) ----" ;;
    esac
    cat "$WORK/$label.log"
done
echo
cat "$WORK"/native-on.result "$WORK"/native-off.result
for label in native-on native-off; do
    if [ -f "$WORK/$label.failed" ]; then
        echo "aarch64.sh: $(cat "$WORK/$label.failed")" >&2
        status=1
    fi
done
echo "aarch64: stage took $(($(now) - STAGE_START)) s in all"
exit "$status"
