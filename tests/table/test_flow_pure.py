"""The flow is pure: importing it loads no imaging, display, GPIO or asyncio machinery."""

import subprocess
import sys


def test_importing_the_flow_loads_nothing_heavy():
    code = ("import coindrel.table.flow, sys; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in {'PIL','luma','gpiozero','asyncio','concurrent'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True).stdout
    assert out.strip() == "[]"
