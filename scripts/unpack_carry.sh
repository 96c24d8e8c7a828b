# Sourced on the GPU machine: unpacks the xz-compressed binaries of .carry/
# (scripts/pack_for_device.sh) into /tmp/tk-bin and sets out=$OUT.
out=${OUT:-/tmp/tk-out}
mkdir -p "$out" /tmp/tk-bin
for f in .carry/*.xz; do xz -dc "$f" > /tmp/tk-bin/$(basename "$f" .xz); done
chmod +x /tmp/tk-bin/*
