#!/usr/bin/env python3
"""Seed corpus for tk_opt_fuzzer from the lit tests: each input file split at
`// -----`, prefixed with the byte that picks the pipeline its RUN lines use."""
import pathlib
import sys

# Index into kPipelines of tk_opt_fuzzer.cpp, by the first pass a RUN line names.
PIPELINES = [("-tile-to-ptx", 2), ("-tile-to-cpu-llvm", 6), ("-tile-pipeline-copies", 7),
             ("-tile-lower-to-cpu", 4), ("-tile-lower-to-gpu", 1), ("-tile-assign-layouts", 0)]


def main(lit_dir, out_dir):
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    count = 0
    for path in sorted(pathlib.Path(lit_dir).rglob("*.mlir")):
        text = path.read_text()
        run = " ".join(l for l in text.splitlines() if "RUN:" in l)
        selector = next((i for flag, i in PIPELINES if flag in run), 0)
        for n, chunk in enumerate(text.split("// -----")):
            name = f"{path.parent.name}_{path.stem}_{n}"
            (out / name).write_bytes(bytes([selector]) + chunk.encode())
            count += 1
    print(f"{count} seed inputs in {out}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
