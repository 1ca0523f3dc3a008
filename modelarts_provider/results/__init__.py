"""A sweep's results: which point won (issue 23).

table.py       points of a sweep (key, parameters, phase, objective, duration, output path), the best one,
               and the compact table printed at the end of `up` and by `results`
show.py        printable(): the one function every text of these reports passes through before it is printed
chart.py       objective against each swept parameter, as a PNG (matplotlib, Agg)
curves.py      metric curves: every match of a metric's regex in a log a point (step, value)
divergence.py  a metric whose value turns non-finite
history.py     `results KEY --history`: every run of a job key
failed_up.py   after a failed `up`: whether the state is newer than the exports
(the commands themselves, `results` and `status`, are in cli/)
"""
