# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by ./run and ./run-tests: install what is missing (Debian 12).
BUILD_DEPS="gcc pkg-config meson ninja-build libncurses-dev libproc2-dev libtracefs-dev
	libtraceevent-dev libzstd-dev libinih-dev libmicrohttpd-dev zlib1g-dev"
TEST_DEPS="libcmocka-dev python3 tmux util-linux e2fsprogs xfsprogs btrfs-progs bindfs valgrind clang
	libclang-rt-14-dev prometheus curl locales"

# ensure_pkgs PKG...: apt-get install the ones not installed yet.
ensure_pkgs() {
	local missing=() p sudo=()
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} = 0 ] && return 0
	[ "$(id -u)" = 0 ] || sudo=(sudo)
	echo "installing: ${missing[*]}" >&2
	"${sudo[@]}" apt-get update -qq >&2 &&
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends \
		"${missing[@]}" >&2
}
