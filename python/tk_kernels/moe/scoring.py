"""ScoringFunc: the gate's scoring functions, with the values tk_scoring uses."""

from enum import IntEnum


class ScoringFunc(IntEnum):
    SIGMOID = 0
    SQRTSOFTPLUS = 1
    SOFTMAX = 2
    IDENTITY = 3  # parsed but rejected by top2_sum_gate, as in TileKernels

    def __str__(self):
        return self.name.lower()

    @classmethod
    def from_str(cls, label):
        try:
            return cls[label.upper()]
        except (KeyError, AttributeError):
            raise ValueError(f'{label} is not a valid {cls.__name__}') from None
