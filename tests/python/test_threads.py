# SPDX-License-Identifier: Apache-2.0
"""Several threads on one Topology: the same answers as one thread, and the GIL released
while the library works."""
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import linksim


def one_call(topo, i):
    if i % 3 == 0:
        return linksim.collective(topo, "allreduce", minbytes="1M", maxbytes="1G", stepfactor=4,
                                  mode="flow")
    if i % 3 == 1:
        return linksim.plan(topo, "llama3.1-70b", mode="decode", tp=8, batch=i)
    return linksim.search(topo, "llama3.1-8b", mode="train", seq=4096, global_batch=64)


def test_threads_give_the_answers_of_one_thread(dgx_h100):
    sequential = [one_call(dgx_h100, i) for i in range(9)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        parallel = list(pool.map(lambda i: one_call(dgx_h100, i), range(9)))
    assert parallel == sequential


def test_the_gil_is_released_during_a_long_call():
    """A Python thread keeps counting while the library works: with the GIL held it could
    not count at all between the call's start and end."""
    ticks = [0]
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks[0] += 1
            time.sleep(0.0005)

    cluster = linksim.load_topology("dgx-h100-ib", set={"nodes": 24})  # 192 GPUs
    counter = threading.Thread(target=count)
    counter.start()
    try:
        time.sleep(0.05)
        started = time.perf_counter()
        before = ticks[0]
        # An AllToAll over 192 GPUs, simulated flow by flow: a quarter of a second here.
        linksim.collective(cluster, "alltoall", sizes=["1G"], mode="flow")
        during = ticks[0] - before
        elapsed = time.perf_counter() - started
    finally:
        stop.set()
        counter.join()
    assert elapsed > 0.05, "the call should take long enough to measure"
    assert during >= 10, (during, elapsed)
