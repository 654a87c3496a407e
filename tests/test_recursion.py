"""`deep_recursion` is safe when threads enter and leave it in any order."""

from __future__ import annotations

import random
import sys
import threading
import time

from policyc.recursion import deep_recursion


def test_nested_blocks_restore_the_limit():
    before = sys.getrecursionlimit()
    with deep_recursion(5000):
        with deep_recursion(8000):
            assert sys.getrecursionlimit() >= 8000
        assert sys.getrecursionlimit() >= 8000  # never lowered under a block still running
    assert sys.getrecursionlimit() == before


def test_threads_never_lower_the_limit_under_each_other_and_restore_it():
    before = sys.getrecursionlimit()
    seen_low: list[int] = []
    rng = random.Random(7)
    delays = [[rng.random() / 200 for _ in range(20)] for _ in range(8)]

    def work(mine):
        for d in mine:
            with deep_recursion(6000):
                time.sleep(d)
                if sys.getrecursionlimit() < 6000:
                    seen_low.append(sys.getrecursionlimit())

    threads = [threading.Thread(target=work, args=(d,)) for d in delays]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen_low == []
    assert sys.getrecursionlimit() == before
