// Added to the Python language host's main package at build time (scripts/install_engine.sh, with `go build
// -overlay`): the host finds the program's Pulumi packages from the environment's installed distributions, and
// the 3.79 host lists them with `python -m pip list -v --format json` before every engine command. Importing
// pip costs that command 0.25-0.4 CPU-s; this script prints the same JSON (name, version, location: the
// directory holding the distribution's metadata, where pip's location points) from the standard library's
// importlib.metadata in about 0.05. Pulumi's own host made the same move later (pulumi/pulumi#22127).
// As pip does: the current directory (the program's) is not searched, and the first distribution of a name on
// sys.path wins.
package main

const installedPackagesScript = `import importlib.metadata, json, os, re, sys
if sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]
seen, found = set(), []
for dist in importlib.metadata.distributions():
    name = dist.metadata["Name"]
    key = re.sub(r"[-_.]+", "-", name or "").lower()
    if name and key not in seen:
        seen.add(key)
        found.append({"name": name, "version": dist.version, "location": os.fspath(dist.locate_file(""))})
print(json.dumps(found))
`
