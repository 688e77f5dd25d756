"""``coindrel reconcile``'s reading of a log it is given (obslog.read_log)."""
def test_a_ground_truth_log_is_named_not_read_as_nothing(tmp_path):
    """Found by a newcomer: `coindrel reconcile truth.jsonl` exited 0 with no output."""
    import json

    import pytest

    from coindrel.engine import EngineError
    from coindrel.obslog import read_log

    head = {"kind": "header", "log": "ground-truth", "format": 1, "board": "standard",
            "state": ["LLLLLLLL", "LLLLLLL", "LLLLLLLL", "LLLLLLL", "LLLLLLLL"]}
    with pytest.raises(EngineError, match="ground truth .*--log"):
        read_log([json.dumps(head)])
