#!/usr/bin/env bash
# Installs Staghorn's build and run dependencies from Debian 12 packages. Idempotent: does nothing
# when every package is already there. Needs root (or sudo) only when something is missing.
set -euo pipefail
packages=(
  build-essential cmake pkg-config
  libopenmpi-dev openmpi-bin                    # MPI
  libnetcdf-mpi-dev netcdf-bin                  # netCDF-C with parallel HDF5; ncdump
  libblosc-dev libssl-dev                       # named by Debian's netCDF CMake config
  nlohmann-json3-dev libgtest-dev               # config parsing; tests
  libeigen3-dev                                 # the direct sparse solve of a Stokes test
  python3 python3-numpy python3-netcdf4 python3-xarray python3-matplotlib  # scripts
  python3-dask python3-jsonschema              # open_mfdataset, describe --json-schema (tests)
  paraview python3-paraview xvfb x11-utils      # ParaView reads the XDMF index (~80 s to install)
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0
echo "installing: ${missing[*]}"
sudo=""
[[ $(id -u) -ne 0 ]] && sudo=sudo
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
