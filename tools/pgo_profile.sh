#!/usr/bin/env bash
# Train a profile for a profile-guided build of the extension (issue 26) and print its path.
#
# An instrumented build of the extension (its own target folder, target/pgo-gen) runs the
# shipped scenarios that finish in under a second (the dumbbells, the lossy links, the mixed and
# UDP traffic, the first 100 s of the 16-source ATM star) and generated dumbbells
# (tools/pgo_train.py: each common TCP configuration, and 2,000 flows); not bench/htsim_compare's
# dumbbells, which measure the result. LLVM's llvm-profdata merges what they counted. The profile steers code layout,
# inlining and branch order only: the same program, so every output is byte for byte what an
# ordinary build gives (tools/identity.py checks it).
#
# It is the same cargo build of the same package as maturin's, so the core is compiled with the
# same crate hash and the profile's function names match (an `examples/run` build would not:
# its dev-dependencies change the features, and so the hash, of the core's dependencies).
# llvm-profdata must match rustc's LLVM: it is rustup's llvm-tools component, added here when
# missing. Without it this script says so on stderr and exits 3, and the caller builds without
# a profile; any other failure (a training scenario that fails, say) is the build's failure.
set -euo pipefail
cd "$(dirname "$0")/.."
# Run from make, cargo and rustc would find make's jobserver in MAKEFLAGS without its descriptors.
unset MAKEFLAGS MFLAGS

out=${PGO_DIR:-target/pgo-gen}
python=${PYTHON:-python3}
host=$(rustc -vV | sed -n 's/^host: //p')
profdata="$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata"
if [ ! -x "$profdata" ] && command -v rustup >/dev/null; then
    timeout 120 rustup component add llvm-tools >&2 || true
fi
if [ ! -x "$profdata" ]; then
    echo "tcplab: no llvm-profdata for this rustc (rustup component add llvm-tools): building without a profile" >&2
    exit 3
fi

RUSTFLAGS="${RUSTFLAGS:-} -Cprofile-generate=$PWD/$out/raw" \
    cargo build --quiet --release -p tcplab-py --target-dir "$out" >&2
# The build's proc macros are instrumented too and leave their counts while compiling.
rm -rf "$out/raw"
"$python" tools/pgo_train.py "$out/release/lib_core.so" \
    scenarios/bench_atm_16.toml@100s scenarios/bench_dumbbell_10.toml scenarios/bench_dumbbell_100.toml \
    scenarios/dumbbell.toml scenarios/hfc_like_loss.toml scenarios/lossy_link.toml \
    examples/mixed_traffic.toml examples/udp_cross_traffic.toml >&2
"$profdata" merge -o "$out/tcplab.profdata" "$out/raw"
echo "$PWD/$out/tcplab.profdata"
