# Sourced by the .ci scripts: apt_install PACKAGE... installs Debian packages (with sudo when not
# root and sudo exists), non-interactively.
apt_install() {
  local sudo=""
  if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then
    sudo="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "$@"
}
