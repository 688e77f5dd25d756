# MicroPython: the hub as deployed, replay ring and all, fits the Pico's heap.
# A script of its own: the larger test scripts' compiled code fragments the
# 192 KiB heap more than the firmware alone does.
import gc
import os
import time

import faketime
import machine
import rp2
from coindrel_hub import app, chanmap
from coindrel_hub.replay import CAPACITY
from hubframes import FakeIO
from mptest import eq, run


def test_hub_with_the_full_replay_ring_fits_a_pico():
    machine.clear()
    gc.collect()
    before = gc.mem_free()
    for p in chanmap.ADC_PINS:
        machine.set_adc(p, 2980)
    rp2.HC165Chain(chanmap.LOAD_PIN, chanmap.CLOCK_PIN, chanmap.DATA_PIN)
    hub, stop = app.build(machine, rp2, None, os, chanmap, io=FakeIO(), cal_path="cal.json",
                          ticks_us=faketime.ticks_us, ticks_diff=time.ticks_diff, ticks_add=time.ticks_add)
    for _ in range(50):
        hub.sampler.sm.run_us(200)
        hub.step()
    gc.collect()
    used = before - gc.mem_free()
    eq(hub.ring.cap, CAPACITY, "the Pico's ring")
    print("hub state, buffers and replay ring (%d events): %d bytes; %d bytes of the heap left" % (CAPACITY, used, gc.mem_free()))
    assert used < 64000, used


run(globals())
