"""The reader's libraries held to one thread each, in a process that is one of several reading side by side."""

from __future__ import annotations


def one_thread_each() -> None:
    """numpy's BLAS and OpenCV each on one thread in this process: a server reads on processes, one a core,
    and the libraries' own threads on top of them only fight them for the cores (two photos read at
    once took 0.6 s each with them, 0.3 s without: bench/photo.py)."""
    import cv2
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)  # numpy's OpenBLAS, already loaded: an environment variable would come too late
    cv2.setNumThreads(1)
