"""QuantTensor: a pair (data, sf), as in TileKernels (a plain tuple here: no torch needed)."""

QuantTensor = tuple
