#!/usr/bin/env python3
"""`accel-sim help python` names only what the Python package defines (issue 50: it advertised accelerate_sim.check).

Every `accelerate_sim.NAME` (and `accelerate_sim.SUBMODULE.NAME`) in the help text must exist in python/accelerate_sim: the package
is imported from the checkout's sources with a stand-in for the compiled `_core` (which a CMake build does not make);
where that import fails, the names are read statically from __init__.py (and the submodule's file).
  help_python_names_test.py ACCEL_SIM_EXE SOURCE_ROOT
"""
import ast
import importlib
import os
import re
import subprocess
import sys
import types


def static_names(path):
    """Top-level names a module file defines: def, class, assignments, imports, __all__ and lazy __getattr__ names."""
    tree = ast.parse(open(path).read(), path)
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            if node.name == "__getattr__":  # `if name == "record":` branches
                for sub in ast.walk(node):
                    if isinstance(sub, ast.Compare) and isinstance(sub.comparators[0], ast.Constant):
                        names.add(sub.comparators[0].value)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if isinstance(t, ast.Name):
                    names.add(t.id)
                    if t.id == "__all__":
                        names.update(ast.literal_eval(node.value))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def make_resolver(package_dir):
    sys.path.insert(0, os.path.dirname(package_dir))
    sys.modules["accelerate_sim._core"] = types.ModuleType("accelerate_sim._core")  # the compiled module's stand-in
    try:
        pkg = importlib.import_module("accelerate_sim")
        assert os.path.dirname(os.path.abspath(pkg.__file__)) == os.path.abspath(package_dir), pkg.__file__
    except Exception as e:  # noqa: BLE001: fall back to reading the sources
        print(f"note: importing accelerate_sim from {package_dir} failed ({e!r}); reading its names statically")

        def resolve(parts):
            names = static_names(os.path.join(package_dir, "__init__.py"))
            if parts[0] not in names and not os.path.exists(os.path.join(package_dir, parts[0] + ".py")):
                return False
            if len(parts) == 1:
                return True
            sub = os.path.join(package_dir, parts[0] + ".py")
            return os.path.exists(sub) and parts[1] in static_names(sub)

        return resolve

    def resolve(parts):
        obj = pkg
        for i, part in enumerate(parts):
            if not hasattr(obj, part):
                try:  # a submodule not imported yet (accelerate_sim.testing)
                    obj = importlib.import_module(".".join(["accelerate_sim"] + parts[: i + 1]))
                    continue
                except ImportError:
                    return False
            obj = getattr(obj, part)
        return True

    return resolve


def main():
    exe, root = sys.argv[1], sys.argv[2]
    out = subprocess.run([exe, "help", "python"], capture_output=True, text=True, check=True).stdout
    named = sorted(set(re.findall(r"\baccelerate_sim((?:\.[A-Za-z_][A-Za-z0-9_]*)+)", out)))
    if not named:
        print(f"FAIL: `accel-sim help python` names no accelerate_sim.X:\n{out}")
        return 1
    resolve = make_resolver(os.path.join(root, "python", "accelerate_sim"))
    missing = [n for n in named if not resolve(n.lstrip(".").split("."))]
    for n in named:
        print(f"{'ok  ' if n not in missing else 'FAIL'} accelerate_sim{n}")
    if missing:
        print(f"FAIL: `accel-sim help python` names {', '.join('accelerate_sim' + m for m in missing)}, which "
              f"python/accelerate_sim does not define:\n{out}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
