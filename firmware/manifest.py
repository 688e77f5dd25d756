# What goes onto the Pico, in MicroPython's manifest format: `coindrel hub deploy`
# reads it to copy the files with mpremote, and the same file can freeze the
# firmware into a custom MicroPython build (`make BOARD=RPI_PICO FROZEN_MANIFEST=...`).
# main.py is copied to the filesystem root; the calibration file (/coindrel_cal.json)
# is never touched by a deploy.
package("coindrel_hub")
module("main.py")
