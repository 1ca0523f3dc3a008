"""A sweep's results: which point won (issue 23).

table.py    points of a sweep (key, parameters, phase, objective, duration, output path), the best one,
            and the compact table printed at the end of `up` and by `results`
show.py     printable(): the one function every text of these reports passes through before it is printed
chart.py    objective against each swept parameter, as a PNG (matplotlib, Agg)
cli.py      `python -m modelarts_provider results` and `status`
"""
