"""Out-of-memory errors from either framework are recognised, with the line that says why."""

from __future__ import annotations

import pytest

from engine.core.errors import is_out_of_memory, out_of_memory_line

# The texts the frameworks raise (TensorFlow's shortened: the node's Python stack is cut out).
TF_OOM = (
    "Graph execution error:\n\nDetected at node gradient_tape/MatMul defined at (most recent "
    'call last):\n  File "<frozen runpy>", line 198, in _run_module_as_main\n\nOOM when '
    "allocating tensor with shape[200000,128] and type float on /job:localhost/replica:0/task:0"
    "/device:CPU:0 by allocator cpu\n\t [[{{node gradient_tape/MatMul}}]]\n"
)
TF_CONSTANT = (
    "Graph execution error:\n\nDetected at node AddN_1/tmp_var_zeros defined at (most recent "
    "call last):\n<stack traces unavailable>\nCannot parse tensor from proto: "
    "goo.gle/debugproto   \ndtype: DT_FLOAT\n"
)
TORCH_CPU = (
    "[enforce fail at alloc_cpu.cpp:121] data. DefaultCPUAllocator: can't allocate memory: you "
    "tried to allocate 2457600000 bytes. Error code 12 (Cannot allocate memory)"
)


class ResourceExhaustedError(Exception):
    """Named as TensorFlow's: the check reads the type's name, not the class."""


class InvalidArgumentError(Exception):
    pass


@pytest.mark.parametrize(
    ("exc", "line"),
    [
        (
            ResourceExhaustedError(TF_OOM),
            "OOM when allocating tensor with shape[200000,128] and type float on CPU:0 by "
            "allocator cpu",
        ),
        (InvalidArgumentError(TF_CONSTANT), "could not allocate a constant tensor"),
        (RuntimeError(TORCH_CPU), "DefaultCPUAllocator: can't allocate memory"),
        (MemoryError(), "MemoryError"),
    ],
)
def test_out_of_memory_is_recognised_with_the_line_that_says_what(exc, line):
    assert is_out_of_memory(exc)
    assert line in out_of_memory_line(exc)


def test_other_errors_are_not_out_of_memory():
    assert not is_out_of_memory(InvalidArgumentError("Graph execution error:\nIncompatible shapes"))
    assert not is_out_of_memory(ValueError("bad value"))
