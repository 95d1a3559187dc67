"""seam.nn: torch.nn's modules and functional API over seam's layers (docs/python.md)."""

from . import functional  # noqa: F401
from .attention import MultiheadAttention  # noqa: F401
from .modules import (  # noqa: F401
    AvgPool2d,
    BatchNorm2d,
    BCEWithLogitsLoss,
    Conv2d,
    CrossEntropyLoss,
    Dropout,
    Embedding,
    Flatten,
    GELU,
    Identity,
    L1Loss,
    LayerNorm,
    Linear,
    LogSoftmax,
    MaxPool2d,
    Module,
    ModuleList,
    MSELoss,
    NLLLoss,
    Parameter,
    ReLU,
    Sequential,
    Sigmoid,
    Softmax,
    Tanh,
)
