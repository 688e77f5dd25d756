# The Pi's commands as the hub answers them: every answer is queued as a
# control item for send.py to write once the events before it are out.
# A calibration save waits for quiet beams (flash is written with
# interrupts off). Nothing runs at import.
from . import proto
from .send import Sender


class Commands(Sender):
    def command(self, typ, seq, body):
        c = self.control
        try:
            if typ == proto.HELLO_REQ:
                c.append(("hello", seq))
                self.raw_us = 0  # a new connection: whoever asked for a raw stream is gone
            elif typ == proto.SNAPSHOT_REQ:
                c.append(("snap", seq))
            elif typ == proto.CAL_GET:
                c.append(("cal", seq))
            elif typ == proto.CAL_SET:
                self._cal_set(seq, body)
            elif typ == proto.RAW_STREAM:
                ms = proto.decode_u16(body)
                self.raw_us = ms * 1000
                c.append(("ack", seq, typ, proto.OK, "raw stream every %d ms" % ms if ms else "raw stream off"))
            elif typ == proto.OUTPUTS:
                self._outputs(seq, body)
            elif typ == proto.RESUME:
                boot, mode, after = proto.decode_resume(body)
                c.append(("resumed", seq, boot, mode, after))
            elif typ == proto.RESET:
                c.append(("ack", seq, typ, proto.OK, "resetting"))
                c.append(("reset",))
            else:
                c.append(("ack", seq, typ, proto.UNKNOWN_COMMAND, "unknown command 0x%02x" % typ))
        except ValueError as e:
            c.append(("ack", seq, typ, proto.BAD_REQUEST, str(e)))

    def _cal_set(self, seq, body):
        save, hyst, bf, hf, items = proto.decode_cal_set(body)
        self.cal.set(hyst, bf, hf, items)
        self.apply_calibration()
        if save and self.cal_path:
            # Flash is written with interrupts off: beam changes then would be
            # stamped late. Wait (up to 2 s) until no beam is on its way.
            self.quiet_save = (seq, self.add(self.clock.last, 2000000))
            return
        self.control.append(("ack", seq, proto.CAL_SET, proto.OK, "applied, not saved"))

    def _beams_quiet(self, now):
        b = self.beams
        if b is None:
            return True
        return not b.pending and not self.stage.n and self.diff(now, self.last_beam) > 100000 \
            and self.sampler.st[0] == self.sampler.st[1]

    def _try_save(self, now):
        seq, deadline = self.quiet_save
        late = self.diff(now, deadline) >= 0
        if not late and not self._beams_quiet(now):
            return
        self.quiet_save = None
        try:
            self.cal.save(self.cal_path)
        except OSError as e:
            self.control.append(("ack", seq, proto.CAL_SET, proto.FAILED, "saving to flash failed: %s" % e))
            return
        self.saves += 1
        self.control.append(("ack", seq, proto.CAL_SET, proto.OK,
                             "saved (beams were busy for 2 s: changes during the write may be stamped late)" if late else "saved"))

    def _outputs(self, seq, body):
        leds, drop, pulse = proto.decode_outputs(body)
        o = self.outputs
        status, text = proto.OK, ""
        if leds and (o is None or o.leds is None):
            status, text = proto.NOT_WIRED, "entry LEDs are not wired to the hub"
        elif o is not None and o.leds is not None:
            o.set_leds(leds)
        if drop != 0xFF:
            if drop > 7:
                raise ValueError("drop entry %d is not 0..7" % drop)
            if o is None or o.drop_pins is None:
                status, text = proto.NOT_WIRED, "the coin dropper is not wired to the hub"
            else:
                o.drop(drop, pulse, self.clock.last)
        self.control.append(("ack", seq, proto.OUTPUTS, status, text))
