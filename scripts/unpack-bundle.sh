# Sourced by the GPU scripts: unpack_bundle ROOT unpacks the bundle of scripts/gpu-bundle.sh
# (ROOT/.device/bundle.tar.xz, or an older .tar.gz) into ROOT/.device-bundle unless it is there.
unpack_bundle() {
  local root=$1 t
  [[ -d $root/.device-bundle ]] && return 0
  for t in "$root"/.device/bundle.tar.xz "$root"/.device/bundle.tar.gz; do
    [[ -f $t ]] && { tar xf "$t" -C "$root"; return; }
  done
  echo "no bundle in $root/.device (scripts/gpu-bundle.sh makes it)" >&2
  return 1
}
