// Added to the Python language host's main package at build time (scripts/install_engine.sh, with `go build
// -overlay`): the host finds the program's Pulumi packages from the environment's installed distributions, and
// the 3.79 host lists them with `python -m pip list -v --format json` before every engine command. Importing
// pip costs that command 0.25-0.4 CPU-s; this script prints the same JSON (name, version, location: the
// directory holding the distribution's metadata, where pip's location points) in about 0.07 CPU-s, with `os`
// alone. Pulumi's own host later dropped pip for this too (pulumi/pulumi#22127).
// As pip does: the current directory (the program's) is not searched, and the first distribution of a name on
// sys.path wins. It finds what importlib.metadata.distributions() finds on a plain sys.path (each folder's
// *.dist-info and *.egg-info, in path order) without importing it (email, zipfile, csv: 0.07 CPU-s of their own),
// and reads Name and Version from the metadata's header lines, up to the first blank line, rather than parsing the
// whole file (a long description included) with the email parser. Both are single-line headers (core metadata
// spec), and the first of each wins, as with the parser.
package main

const installedPackagesScript = `import json, os, re, sys
if sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]
def header(folder):
    for meta in ("METADATA", "PKG-INFO"):
        try:
            lines = open(os.path.join(folder, meta), encoding="utf-8")
        except OSError:
            continue
        found = {}
        with lines:
            for line in lines:
                if not line.strip():
                    break
                key, sep, value = line.partition(":")
                if sep and key in ("Name", "Version") and key not in found:
                    found[key] = value.strip()
        return found.get("Name"), found.get("Version")
    return None, None
seen, found = set(), []
for entry in sys.path:
    folder = entry or "."
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        continue
    for child in names:
        if not child.endswith((".dist-info", ".egg-info")):
            continue
        name, version = header(os.path.join(folder, child))
        key = re.sub(r"[-_.]+", "-", name or "").lower()
        if name and key not in seen:
            seen.add(key)
            found.append({"name": name, "version": version, "location": folder})
print(json.dumps(found))
`
