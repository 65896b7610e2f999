"""Loading the perception models: numpy's and scipy's BLAS are put on one thread for the recorder."""

from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_info

from app.recorder.perception import single_thread_blas


def _blas() -> list[dict]:
    return [
        i
        for i in threadpool_info()
        if i["user_api"] == "blas" and ("numpy" in i["filepath"] or "scipy" in i["filepath"])
    ]


def test_numpy_and_scipy_blas_run_on_one_thread_after_loading():
    np.ones((64, 64)) @ np.ones((64, 64))  # numpy's BLAS is loaded
    if not _blas():
        pytest.skip("numpy is not linked to a BLAS that threadpoolctl can see")
    single_thread_blas()
    assert {i["num_threads"] for i in _blas()} == {1}
