#!/bin/sh
# ptyhub installer: downloads the release archive for this machine, verifies it against the
# release's SHA256SUMS, and installs the `ptyhub` binary.
#
#   curl -fsSL https://raw.githubusercontent.com/ptyhub/ptyhub/main/install.sh | sh
#
# Environment:
#   PTYHUB_VERSION        install this version (0.2.0 or v0.2.0) instead of the latest release
#   PTYHUB_INSTALL_DIR    install into this directory instead of ~/.local/bin
#   PTYHUB_REPO           GitHub repository to download from (owner/name)
#   PTYHUB_DOWNLOAD_BASE  URL of a directory holding SHA256SUMS and the archives, used instead
#                         of GitHub Releases (mirrors, air-gapped installs, CI)
#
# POSIX sh; checked with shellcheck. Everything runs inside main(), called on the last line, so
# a download cut short never runs half a script.
set -eu

DEFAULT_REPO="ptyhub/ptyhub"

say() {
	printf '%s\n' "$*"
}

fail() {
	printf 'ptyhub install: %s\n' "$*" >&2
	exit 1
}

# Test-only hooks: the test suite sets these to fake other machines (uname values, libc,
# Rosetta). They are not a user interface.
machine_os() {
	if [ -n "${PTYHUB_TEST_UNAME_S:-}" ]; then say "$PTYHUB_TEST_UNAME_S"; else uname -s; fi
}

machine_arch() {
	if [ -n "${PTYHUB_TEST_UNAME_M:-}" ]; then say "$PTYHUB_TEST_UNAME_M"; else uname -m; fi
}

is_rosetta() {
	if [ -n "${PTYHUB_TEST_ROSETTA:-}" ]; then
		[ "$PTYHUB_TEST_ROSETTA" = 1 ]
		return
	fi
	[ "$(sysctl -n sysctl.proc_translated 2>/dev/null || true)" = 1 ]
}

is_musl() {
	if [ -n "${PTYHUB_TEST_LIBC:-}" ]; then
		[ "$PTYHUB_TEST_LIBC" = musl ]
		return
	fi
	# musl's ldd names itself; glibc's does too, but says GNU.
	if command -v ldd >/dev/null 2>&1; then
		if ldd --version 2>&1 | grep -qi musl; then return 0; fi
		return 1
	fi
	# No ldd: a musl loader and no glibc loader.
	[ -e /lib/ld-musl-x86_64.so.1 ] || [ -e /lib/ld-musl-aarch64.so.1 ] || return 1
	for loader in /lib/ld-linux* /lib64/ld-linux*; do
		[ -e "$loader" ] && return 1
	done
	return 0
}

SUPPORTED="Linux x64/arm64 (glibc), Linux x64 (musl), macOS x64/arm64; Windows x64 as a .zip"

# Sets OS, ARCH and LIBC_SUFFIX, the parts of the archive name for this machine.
detect_platform() {
	os_name=$(machine_os)
	arch_name=$(machine_arch)
	case "$os_name" in
	Linux) OS=linux ;;
	Darwin) OS=darwin ;;
	MINGW* | MSYS* | CYGWIN* | Windows_NT)
		fail "this script does not install on Windows. Download ptyhub-<version>-windows-x64.zip from https://github.com/$REPO/releases, or run: npm install -g ptyhub"
		;;
	*) fail "unsupported operating system '$os_name'. ptyhub ships binaries for $SUPPORTED." ;;
	esac
	case "$arch_name" in
	x86_64 | amd64) ARCH=x64 ;;
	aarch64 | arm64 | armv8*) ARCH=arm64 ;;
	*) fail "unsupported CPU architecture '$arch_name' ($os_name). ptyhub ships binaries for $SUPPORTED." ;;
	esac
	# An x64 shell on Apple silicon runs under Rosetta 2; the native arm64 build is faster, and
	# Rosetta cannot run x64 code that uses AVX2, which Bun's default x64 build does.
	if [ "$OS" = darwin ] && [ "$ARCH" = x64 ] && is_rosetta; then
		ARCH=arm64
	fi
	LIBC_SUFFIX=""
	if [ "$OS" = linux ] && is_musl; then
		[ "$ARCH" = x64 ] || fail "unsupported platform: Linux $ARCH with musl libc (there is a musl build for x64 only). ptyhub ships binaries for $SUPPORTED."
		LIBC_SUFFIX="-musl"
	fi
}

download() {
	if command -v curl >/dev/null 2>&1; then
		# Redirects (GitHub sends downloads to its CDN) may only go to https.
		curl --fail --silent --show-error --location --proto-redir =https --output "$2" "$1"
	elif command -v wget >/dev/null 2>&1; then
		wget --quiet --output-document="$2" "$1"
	else
		fail "needs curl or wget to download ptyhub"
	fi
}

sha256_of() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$1" | cut -d ' ' -f 1
	elif command -v shasum >/dev/null 2>&1; then
		shasum -a 256 "$1" | cut -d ' ' -f 1
	elif command -v openssl >/dev/null 2>&1; then
		openssl dgst -sha256 -r "$1" | cut -d ' ' -f 1
	else
		fail "needs sha256sum, shasum or openssl to verify the download"
	fi
}

# Prints "<sha256> <archive>" for the one SHA256SUMS line naming this platform's archive (of
# VERSION, when set); prints nothing when there is not exactly one.
find_archive() {
	awk -v want="$1" -v suffix="$2" '
		NF == 2 {
			name = $2
			sub(/^\*/, "", name)
			if (want != "" ? name == want : (index(name, "ptyhub-") == 1 && length(name) > length(suffix) && substr(name, length(name) - length(suffix) + 1) == suffix)) {
				if ($1 ~ /^[0-9a-fA-F]+$/ && length($1) == 64) { found = tolower($1) " " name; count++ }
			}
		}
		END { if (count == 1) print found }
	' "$3"
}

path_hint() {
	case ":${PATH:-}:" in
	*":$1:"*)
		say "Next: ptyhub install    (registers ptyhub with your MCP clients)"
		return
		;;
	esac
	home_dir=${HOME:-"\$HOME"}
	case "${SHELL:-}" in
	*/zsh) profile="$home_dir/.zshrc" ;;
	*/bash) if [ "$OS" = darwin ]; then profile="$home_dir/.bash_profile"; else profile="$home_dir/.bashrc"; fi ;;
	*/fish)
		say "$1 is not on your PATH. Add it with:"
		say "  fish_add_path $1"
		return
		;;
	*) profile="$home_dir/.profile" ;;
	esac
	say "$1 is not on your PATH. Add it, then open a new shell:"
	say "  echo 'export PATH=\"$1:\$PATH\"' >> $profile"
	say "Then: ptyhub install    (registers ptyhub with your MCP clients)"
}

main() {
	REPO=${PTYHUB_REPO:-$DEFAULT_REPO}
	detect_platform
	command -v tar >/dev/null 2>&1 || fail "needs tar to unpack the archive"

	version=${PTYHUB_VERSION:-}
	version=${version#v}
	if [ -n "${PTYHUB_DOWNLOAD_BASE:-}" ]; then
		base=${PTYHUB_DOWNLOAD_BASE%/}
	elif [ -n "$version" ]; then
		base="https://github.com/$REPO/releases/download/v$version"
	else
		base="https://github.com/$REPO/releases/latest/download"
	fi
	if [ -n "${PTYHUB_INSTALL_DIR:-}" ]; then
		install_dir=$PTYHUB_INSTALL_DIR
	elif [ -n "${HOME:-}" ]; then
		install_dir="$HOME/.local/bin"
	else
		fail "HOME is not set; set PTYHUB_INSTALL_DIR to choose where ptyhub goes"
	fi

	tmp=$(mktemp -d 2>/dev/null || mktemp -d -t ptyhub)
	trap 'rm -rf "$tmp"' EXIT
	trap 'rm -rf "$tmp"; exit 130' INT HUP TERM

	platform="$OS-$ARCH$LIBC_SUFFIX"
	suffix="-$platform.tar.gz"
	want=""
	[ -z "$version" ] || want="ptyhub-$version$suffix"

	# SHA256SUMS names every archive of the release, so it also tells us the latest version.
	download "$base/SHA256SUMS" "$tmp/SHA256SUMS" || fail "could not download $base/SHA256SUMS"
	entry=$(find_archive "$want" "$suffix" "$tmp/SHA256SUMS")
	[ -n "$entry" ] || fail "$base/SHA256SUMS does not list ${want:-exactly one ptyhub-*$suffix archive} (platform $platform)"
	expected=${entry%% *}
	archive=${entry#* }

	say "Downloading $archive"
	download "$base/$archive" "$tmp/$archive" || fail "could not download $base/$archive"
	actual=$(sha256_of "$tmp/$archive" | tr 'A-F' 'a-f')
	if [ "$actual" != "$expected" ]; then
		fail "checksum mismatch for $archive (expected $expected, got $actual). The download is corrupt or was tampered with; nothing was installed."
	fi

	mkdir "$tmp/unpacked"
	tar -xzf "$tmp/$archive" -C "$tmp/unpacked" || fail "could not unpack $archive"
	[ -f "$tmp/unpacked/ptyhub" ] || fail "$archive does not contain a ptyhub binary"

	mkdir -p "$install_dir" || fail "could not create $install_dir"
	# Copy next to the destination, then rename: the binary appears whole or not at all, and a
	# ptyhub that is running keeps its old file.
	staged="$install_dir/.ptyhub.partial.$$"
	if ! { cp "$tmp/unpacked/ptyhub" "$staged" && chmod 755 "$staged" && mv -f "$staged" "$install_dir/ptyhub"; }; then
		rm -f "$staged"
		fail "could not write $install_dir/ptyhub"
	fi

	if ! installed=$("$install_dir/ptyhub" --version 2>&1); then
		hint=""
		# Bun's musl build links the C++ runtime dynamically; Alpine does not ship it by default.
		case "$LIBC_SUFFIX:$installed" in
		-musl:*libstdc++*) hint=" Install the C++ runtime first (Alpine: apk add libstdc++ libgcc), then run ptyhub again." ;;
		esac
		fail "installed $install_dir/ptyhub, but it does not run on this machine: $installed$hint"
	fi
	say "Installed $installed to $install_dir/ptyhub"
	path_hint "$install_dir"
}

main "$@"
