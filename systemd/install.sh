#!/usr/bin/env bash
# Install the scoreboard as a systemd service on Raspberry Pi OS (Bookworm) or Debian 12.
#
# Usage:  sudo systemd/install.sh [--dry-run] [--repo DIR]
#
#   --dry-run   print what would be done and change nothing (works as any user)
#   --repo DIR  the scoreboard source tree to install (default: the one holding this script)
#
# Steps, each skipped or harmless when already done, so re-running it upgrades in place
# (systemd/README.md lists the same steps to type by hand):
#   1. the groups gpio, i2c, spi, dialout and audio (Raspberry Pi OS has them; elsewhere they are created)
#   2. the system user "scoreboard": no login, no home of its own, in those groups
#   3. the venv /opt/scoreboard/venv with `pip install 'REPO[pi]'` (built from a copy of the
#      tree, so no root-owned build/ or *.egg-info is left in your checkout), every module
#      compiled to bytecode (`python -m compileall`: no compiling at boot)
#   4. /etc/scoreboard/scoreboard.toml from `scoreboard config --defaults`, only if missing,
#      with paths.state_dir = /var/lib/scoreboard and board.link = /dev/scoreboard-board;
#      owner root, group scoreboard, mode 0640 (an existing one is given the same)
#   5. the state directory /var/lib/scoreboard, owned by the user, mode 0700 (what is in it
#      loses any group and other access), so `scoreboard enroll` can run before the service
#      has ever started and no other user reads the games
#   6. the unit /etc/systemd/system/scoreboard.service, the udev rule
#      /etc/udev/rules.d/99-scoreboard-board.rules, the polkit rule letting the service
#      switch the Pi off (/etc/polkit-1/rules.d/50-scoreboard-poweroff.rules) and
#      /opt/scoreboard/README.systemd.md
#   7. systemctl daemon-reload; udevadm control --reload and trigger (a board plugged in now
#      gets its name); systemctl enable; systemctl try-restart (only if it was running,
#      so an upgrade takes effect)
#
# It does not start the service: `sudo systemctl start scoreboard` (or reboot).
set -euo pipefail

PYTHON=${PYTHON:-python3}
PREFIX=/opt/scoreboard
VENV=$PREFIX/venv
CONFIG=/etc/scoreboard/scoreboard.toml
STATE_DIR=/var/lib/scoreboard
UNIT_DST=/etc/systemd/system/scoreboard.service
RULES_DST=/etc/udev/rules.d/99-scoreboard-board.rules
POLKIT_DST=/etc/polkit-1/rules.d/50-scoreboard-poweroff.rules
DOC_DST=$PREFIX/README.systemd.md
SERVICE_USER=scoreboard
DEVICE_GROUPS=(gpio i2c spi dialout audio) # not GROUPS: bash reserves that name
BOARD_LINK=/dev/scoreboard-board

dry_run=false
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

usage() {
  sed -n '4,8p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

while [ $# -gt 0 ]; do
  case $1 in
    --dry-run) dry_run=true ;;
    --repo)
      [ $# -ge 2 ] || { echo "install.sh: --repo needs a directory" >&2; exit 2; }
      repo=$(cd "$2" && pwd)
      shift
      ;;
    -h | --help) usage; exit 0 ;;
    *) echo "install.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
  shift
done

say() { printf '==> %s\n' "$*"; }

# Run a command, or in a dry run print it (quoted so it can be pasted into a shell).
run() {
  if $dry_run; then
    local arg line="would run:"
    for arg in "$@"; do
      if [[ $arg =~ ^[A-Za-z0-9_./,:=@+-]+$ ]]; then line+=" $arg"; else line+=" '${arg//\'/\'\\\'\'}'"; fi
    done
    printf '%s\n' "$line"
  else
    "$@"
  fi
}

# A failed precondition stops a real run; a dry run reports it and goes on.
fail() {
  if $dry_run; then
    printf 'dry run: a real run would stop here: %s\n' "$*"
  else
    printf 'install.sh: %s\n' "$*" >&2
    exit 1
  fi
}

# Copy a file into place with the given mode unless it is already there unchanged.
install_file() {
  local src=$1 dst=$2 mode=$3
  if cmp -s "$src" "$dst"; then
    say "$dst is up to date"
  else
    run install -D -m "$mode" "$src" "$dst"
  fi
}

# --- preconditions -----------------------------------------------------------------------

if [ "$(id -u)" -ne 0 ] && ! $dry_run; then
  echo "install.sh: must run as root, e.g. sudo $0${*:+ $*} (--dry-run works as any user)" >&2
  exit 1
fi
if $dry_run; then
  say "dry run: nothing is changed"
else
  work=$(mktemp -d) # the source copy and the new configuration; removed on any exit
  trap 'rm -rf "$work"' EXIT
fi

if [ ! -f "$repo/pyproject.toml" ] || [ ! -f "$repo/systemd/scoreboard.service" ]; then
  echo "install.sh: $repo is not the scoreboard source tree (no pyproject.toml or systemd/scoreboard.service)" >&2
  exit 1
fi
say "installing from $repo"

if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  fail "$PYTHON is missing or older than 3.11 (Raspberry Pi OS Bookworm has 3.11)"
elif ! "$PYTHON" -c 'import ensurepip, venv' 2>/dev/null; then
  fail "$PYTHON cannot create a venv: apt install python3-venv"
fi
[ -d /run/systemd/system ] || fail "systemd is not running here (no /run/systemd/system)"
for tool in systemctl udevadm useradd groupadd; do
  command -v "$tool" >/dev/null || fail "$tool not found"
done

# --- 1, 2: groups and user ---------------------------------------------------------------

for group in "${DEVICE_GROUPS[@]}"; do
  if ! getent group "$group" >/dev/null; then
    say "no group $group (not Raspberry Pi OS?): creating it; its devices must be given to it"
    say "  (a udev rule) or the service cannot open them"
    run groupadd --system "$group"
  fi
done

group_list=$(IFS=,; echo "${DEVICE_GROUPS[*]}")
if id -u "$SERVICE_USER" >/dev/null 2>&1; then
  say "user $SERVICE_USER exists; making sure it is in $group_list"
  run usermod --append --groups "$group_list" "$SERVICE_USER"
else
  # Its own group: reuse one left by an earlier, interrupted run.
  if getent group "$SERVICE_USER" >/dev/null; then own_group=(--gid "$SERVICE_USER"); else own_group=(--user-group); fi
  run useradd --system "${own_group[@]}" --groups "$group_list" \
    --home-dir "$STATE_DIR" --no-create-home --shell /usr/sbin/nologin \
    --comment "Scoreboard service" "$SERVICE_USER"
fi

# --- 3: venv and package -----------------------------------------------------------------

if [ -x "$VENV/bin/python" ]; then
  say "venv $VENV exists"
else
  run install -d -m 0755 "$PREFIX"
  run "$PYTHON" -m venv "$VENV"
fi

# pip builds a local directory in place, which would leave root-owned build/ and
# scoreboard.egg-info in the checkout: build from a copy instead.
if $dry_run; then
  say "would copy $repo (without .git, .venv, caches and build output) to a temporary directory STAGE"
  run "$VENV/bin/pip" install --upgrade "STAGE[pi]"
else
  stage=$work/src
  mkdir "$stage"
  tar -C "$repo" --exclude-vcs --exclude=./.venv --exclude=./build --exclude='./*.egg-info' \
    --exclude=./.hypothesis --exclude='./.*_cache' --exclude=./demo-out -cf - . | tar -C "$stage" -xf -
  run "$VENV/bin/pip" install --upgrade "${stage}[pi]"
fi
# Every module's bytecode now, as root (pip compiles what it installs; this makes sure of it
# for the whole venv): the service's user cannot write into the venv, so anything left
# uncompiled would be compiled again in memory at every boot (a cold start: README,
# "Performance").
run "$VENV/bin/python" -m compileall -q -j 0 "$VENV/lib"

# --- 4: configuration --------------------------------------------------------------------

# Readable by the service (group) and root only: it may come to hold credentials.
if [ -e "$CONFIG" ]; then
  say "keeping the existing $CONFIG"
  run chown "root:$SERVICE_USER" "$CONFIG"
  run chmod 0640 "$CONFIG"
else
  if $dry_run; then
    say "would make NEW_CONFIG: \`scoreboard config --defaults\` with"
    say "  paths.state_dir = \"$STATE_DIR\" and board.link = \"$BOARD_LINK\""
    new_config=NEW_CONFIG
  else
    new_config=$work/scoreboard.toml
    "$VENV/bin/scoreboard" config --defaults \
      | sed -e "s|^state_dir = \"\"\$|state_dir = \"$STATE_DIR\"|" \
        -e "s|^link = \"\"\$|link = \"$BOARD_LINK\"|" >"$new_config"
    # The same state directory for the service and for `sudo -u scoreboard scoreboard ...`
    # (which has no $STATE_DIRECTORY), and the udev rule's name for the board.
    if ! grep -qx "state_dir = \"$STATE_DIR\"" "$new_config" || ! grep -qx "link = \"$BOARD_LINK\"" "$new_config"; then
      echo "install.sh: the default configuration has changed; set paths.state_dir and board.link by hand" >&2
      exit 1
    fi
    "$VENV/bin/scoreboard" config --config "$new_config" >/dev/null # fails on a key it does not know
  fi
  run install -D -o root -g "$SERVICE_USER" -m 0640 "$new_config" "$CONFIG"
  $dry_run || say "wrote $CONFIG"
fi

# --- 5, 6: state directory, unit, udev rule, docs ----------------------------------------

# The games, house lists and tile registry are the service user's alone (the unit's
# StateDirectoryMode=0700 and UMask=0077 keep it so); files an earlier version made
# world-readable lose that.
run install -d -o "$SERVICE_USER" -g "$SERVICE_USER" -m 0700 "$STATE_DIR"
run chmod -R go= "$STATE_DIR"
install_file "$repo/systemd/scoreboard.service" "$UNIT_DST" 0644
install_file "$repo/systemd/99-scoreboard-board.rules" "$RULES_DST" 0644
install_file "$repo/systemd/50-scoreboard-poweroff.rules" "$POLKIT_DST" 0644
install_file "$repo/systemd/README.md" "$DOC_DST" 0644

# --- 7: tell systemd and udev, enable ----------------------------------------------------

run systemctl daemon-reload
run udevadm control --reload
run udevadm trigger --action=add --subsystem-match=tty
run systemctl enable scoreboard.service
run systemctl try-restart scoreboard.service

if [ ! -e /dev/spidev0.0 ] && [ ! -e /dev/i2c-1 ]; then
  say "note: no /dev/spidev0.0 and no /dev/i2c-1: the 3.12in OLED needs SPI (sudo raspi-config nonint do_spi 0),"
  say "      the smaller ones I2C (sudo raspi-config nonint do_i2c 0)"
fi
$dry_run && { say "dry run finished: nothing was changed"; exit 0; }
say "done. Start: sudo systemctl start scoreboard   Logs: journalctl -u scoreboard -f"
