"""The club server (``coindrel club serve``): subscribes to every known table
on the broker, keeps tables, matches, drops and results in SQLite, and serves
the live scoreboard, one table's screen, results, standings and the admin
page (Starlette on uvicorn, Jinja2 templates, server-sent events)."""
