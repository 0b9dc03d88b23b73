"""What the machine allows for a task's bytes: the time to copy its inputs once (numpy.copyto
into preallocated arrays: one read and one write of every input byte, through the same memory
hierarchy the task uses), measured in the same run as the task. A task that must read all its
inputs cannot beat about half of this; its time divided by it (\"x copy\") says how far from the
memory bound it is."""
import time

import numpy as np


def copy_seconds(*arrays, repeats=5):
    """Best time of copying every array once into a preallocated twin, in seconds."""
    sources = [np.ascontiguousarray(a) for a in arrays]
    targets = [np.empty_like(a) for a in sources]
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        for src, dst in zip(sources, targets):
            np.copyto(dst, src)
        best = min(best, time.perf_counter() - t)
    return best
