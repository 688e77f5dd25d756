# Generated from hardware/channel_map.json by `coindrel hub map --firmware`: do not edit.
# The controller checks MAP_HASH in the hub's hello against its own copy of the map.
MAP_HASH = b'\x90\xd1jL\xc8\x13\xff\x80'
BOARD = 'standard'
REGISTERS = 3
LOAD_PIN = 17
CLOCK_PIN = 18
DATA_PIN = 16
SAMPLE_HZ = 10000
BROKEN_LEVEL = 1
# beam id (0-7 entries, 8-23 exits) of each bit of the sample word; 255: nothing wired
BIT_BEAM = b'\x10\x11\x12\x13\x14\x15\x16\x17\x08\t\n\x0b\x0c\r\x0e\x0f\x00\x01\x02\x03\x04\x05\x06\x07'
SELECT_PINS = (10, 11, 12, 13)
ADC_PINS = (26, 27, 28)
SCAN_HZ = 250
# wired hall sensors: (mux 0-based, channel, switch id)
HALLS = (
    (0, 0, 0),
    (0, 1, 1),
    (0, 2, 2),
    (0, 3, 3),
    (0, 4, 4),
    (0, 5, 5),
    (0, 6, 6),
    (0, 7, 7),
    (0, 8, 8),
    (0, 9, 9),
    (0, 10, 10),
    (0, 11, 11),
    (0, 12, 12),
    (0, 13, 13),
    (0, 14, 14),
    (0, 15, 15),
    (1, 0, 16),
    (1, 1, 17),
    (1, 2, 18),
    (1, 3, 19),
    (1, 4, 20),
    (1, 5, 21),
    (1, 6, 22),
    (1, 7, 23),
    (1, 8, 24),
    (1, 9, 25),
    (1, 10, 26),
    (1, 11, 27),
    (1, 12, 28),
    (1, 13, 29),
    (1, 14, 30),
    (1, 15, 31),
    (2, 0, 32),
    (2, 1, 33),
    (2, 2, 34),
    (2, 3, 35),
    (2, 4, 36),
    (2, 5, 37),
)
# switch id -> label (calibration on flash is kept by label)
LABELS = ('R1S1', 'R1S2', 'R1S3', 'R1S4', 'R1S5', 'R1S6', 'R1S7', 'R1S8', 'R2S1', 'R2S2', 'R2S3', 'R2S4', 'R2S5', 'R2S6', 'R2S7', 'R3S1', 'R3S2', 'R3S3', 'R3S4', 'R3S5', 'R3S6', 'R3S7', 'R3S8', 'R4S1', 'R4S2', 'R4S3', 'R4S4', 'R4S5', 'R4S6', 'R4S7', 'R5S1', 'R5S2', 'R5S3', 'R5S4', 'R5S5', 'R5S6', 'R5S7', 'R5S8')
ENTRY_LED_PINS = None
DROPPER_PINS = None
OUTPUT_LEVEL = 1
STATUS_LED_PIN = 25
HEARTBEAT_MS = 500
