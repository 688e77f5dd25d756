# Hall calibration and filter settings, kept on the Pico's flash as JSON
# (written to a temporary file, then renamed: a power cut mid-write leaves the
# old file). Kept by switch label so a changed channel map keeps what still
# applies. Nothing runs at import.
import json
import os

PATH = "/coindrel_cal.json"
# Uncalibrated guesses for the reference magnet placement (hardware/magnets.md):
# rocker L, rocker R, no switch, band half-width, in 12-bit counts.
DEFAULT_REF = (2980, 2330, 2048, 120)
DEFAULT_HYST = 40
DEFAULT_BEAM_FILTER = 5
DEFAULT_HALL_FILTER = 2
LIMITS = {"hyst": (0, 1000), "beam_filter": (1, 100), "hall_filter": (1, 50)}


class Calibration:
    def __init__(self, labels, switches):
        # labels: switch id -> label; switches: switch id per hall slot
        self.labels = labels
        self.switches = switches
        self.hyst = DEFAULT_HYST
        self.beam_filter = DEFAULT_BEAM_FILTER
        self.hall_filter = DEFAULT_HALL_FILTER
        self.refs = [DEFAULT_REF] * len(switches)
        self.saved = False  # matches what is on flash
        self.complete = False  # every wired switch calibrated (not defaults)

    def refs_by_slot(self):
        return self.refs

    def items(self):
        return [(sw,) + tuple(self.refs[i]) for i, sw in enumerate(self.switches)]

    def set(self, hyst, beam_filter, hall_filter, items):
        # Validate everything first: a bad request changes nothing.
        for name, v in (("hyst", hyst), ("beam_filter", beam_filter), ("hall_filter", hall_filter)):
            lo, hi = LIMITS[name]
            if not lo <= v <= hi:
                raise ValueError("%s %d is not %d..%d" % (name, v, lo, hi))
        slots = {}
        for sw, l, r, none, band in items:
            if sw not in self.switches:
                raise ValueError("switch %d has no hall sensor on this hub" % sw)
            for v in (l, r, none):
                if v > 4095:
                    raise ValueError("switch %d: reading %d is over 4095" % (sw, v))
            if not 1 <= band <= 2047:
                raise ValueError("switch %d: band %d is not 1..2047" % (sw, band))
            slots[self.switches.index(sw)] = (l, r, none, band)
        self.hyst, self.beam_filter, self.hall_filter = hyst, beam_filter, hall_filter
        for i, ref in slots.items():
            self.refs[i] = ref
        self.complete = self.complete or len(slots) == len(self.switches)
        self.saved = False

    def to_json(self):
        halls = {}
        for i, sw in enumerate(self.switches):
            halls[self.labels[sw]] = list(self.refs[i])
        return {"format": 1, "hyst": self.hyst, "beam_filter": self.beam_filter,
                "hall_filter": self.hall_filter, "halls": halls}

    def load(self, path=PATH):
        # -> None when loaded, else a sentence saying why the defaults stay.
        try:
            with open(path) as f:
                doc = json.load(f)
        except OSError:
            return "no calibration on the hub yet (run: coindrel hub calibrate)"
        except ValueError:
            return "the calibration file on the hub is damaged; defaults in use (run: coindrel hub calibrate)"
        try:
            if doc.get("format") != 1:
                return "calibration file format %r is not 1; defaults in use" % doc.get("format")
            halls = doc.get("halls", {})
            items = []
            for i, sw in enumerate(self.switches):
                ref = halls.get(self.labels[sw])
                if ref is not None:
                    items.append((sw, int(ref[0]), int(ref[1]), int(ref[2]), int(ref[3])))
            self.set(int(doc.get("hyst", DEFAULT_HYST)), int(doc.get("beam_filter", DEFAULT_BEAM_FILTER)),
                     int(doc.get("hall_filter", DEFAULT_HALL_FILTER)), items)
        except (ValueError, TypeError, IndexError, AttributeError) as e:
            return "the calibration file on the hub is invalid (%s); defaults in use" % e
        self.complete = len(items) == len(self.switches)
        self.saved = True
        if not self.complete:
            return "calibration covers %d of %d hall sensors; the rest use defaults" % (len(items), len(self.switches))
        return None

    def save(self, path=PATH):
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.to_json(), f)
        os.rename(tmp, path)
        self.saved = True
