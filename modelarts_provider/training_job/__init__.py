"""The TrainingJob resource: its args, check, diff, lifecycle and provider side by side.

args.py       every create-API field (python naming) + provider options, with the documented rules
normalize.py  the canonical form shared by check, diff, naming and takeover
check.py      check(): one failure per bad field, no API call
diff.py       diff(): update in place / replace / provider-only, no API call
compare.py    declaration vs live job, from the fields' declarations (takeover, adoption)
name_index.py which jobs already carry a name (one listing per provider process)
lifecycle.py  submit (create / take over / adopt), stop and delete
outputs.py    live job -> status outputs (the output keys' one model)
provider.py   TrainingJobProvider (the dynamic provider)
resource.py   TrainingJob (the Pulumi resource), derived names
"""
