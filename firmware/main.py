# Coindrel sensor hub. Ctrl-C on the USB serial port stops it and gives the REPL.
from coindrel_hub import app

app.run()
