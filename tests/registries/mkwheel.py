#!/usr/bin/env python3
"""Write a pure-Python wheel of one module, for the tests' local index.

Usage: mkwheel.py NAME VERSION MODULE_SOURCE OUT_DIR [REQUIRES...]

The wheel installs MODULE_SOURCE as the package `NAME` (dashes made
underscores) with a console script `NAME` that calls its `main()`. Written
with zipfile (no build backend needed): METADATA, WHEEL, entry_points.txt
and a RECORD with each file's SHA-256, as the wheel format asks.
"""

import base64
import hashlib
import sys
import zipfile


def main() -> None:
    name, version, source, out, *requires = sys.argv[1:]
    module = name.replace("-", "_")
    dist = f"{module}-{version}.dist-info"
    with open(source, encoding="utf-8") as f:
        code = f.read()
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    metadata += "".join(f"Requires-Dist: {r}\n" for r in requires)
    files = {
        f"{module}/__init__.py": code,
        f"{dist}/METADATA": metadata,
        f"{dist}/WHEEL": "Wheel-Version: 1.0\nGenerator: airlock-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{dist}/entry_points.txt": f"[console_scripts]\n{name} = {module}:main\n",
    }
    record = []
    with zipfile.ZipFile(f"{out}/{module}-{version}-py3-none-any.whl", "w") as z:
        for path, text in files.items():
            data = text.encode()
            z.writestr(path, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append(f"{path},sha256={digest},{len(data)}")
        record.append(f"{dist}/RECORD,,")
        z.writestr(f"{dist}/RECORD", "\n".join(record) + "\n")


if __name__ == "__main__":
    main()
