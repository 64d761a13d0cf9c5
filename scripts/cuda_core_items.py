#!/usr/bin/env python3
"""List every public item of NVIDIA's cuda.core from its wheel's type stubs (no import, no GPU).

Usage: scripts/cuda_core_items.py WHEEL_OR_FOLDER [--major 13]

WHEEL_OR_FOLDER is a cuda-core wheel (`pip download --no-deps "cuda-core==1.2.*"`) or the
folder it was unpacked into. Prints one item a line, `path<TAB>kind`, sorted: the names each
public module exports (`__all__` of the modules `cuda/core/__init__.py` star-imports, and of
`cuda.core.graph`, `.texture`, `.system`, `.utils`), then for each exported class its public
methods, properties and attributes (`cuda.core.Device.arch<TAB>property`). docs/cuda-core-mapping.md
has one row per line of this output; codegen/tests/cuda_core_mapping.rs (in the integration binary) checks the rows.
"""

import ast
import os
import sys
import tempfile
import zipfile


def stub(root, module):
    """The .pyi (or .py) source of a dotted module under root, or None."""
    rel = module.replace(".", os.sep)
    for cand in (rel + ".pyi", rel + ".py", os.path.join(rel, "__init__.pyi"), os.path.join(rel, "__init__.py")):
        p = os.path.join(root, cand)
        if os.path.exists(p):
            with open(p, encoding="utf-8") as f:
                return f.read()
    return None


def literal_all(tree):
    """The names of a module's `__all__` when it is a list of string literals (or `*x.__all__`)."""
    names = []
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                if isinstance(node.value, (ast.List, ast.Tuple)):
                    for e in node.value.elts:
                        if isinstance(e, ast.Constant) and isinstance(e.value, str):
                            names.append(e.value)
    return names


def star_modules(tree, package):
    """Modules a package star-imports (`from x import *`)."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            mod = node.module or ""
            if node.level:
                mod = package + "." + mod if mod else package
            if mod not in out:
                out.append(mod)
    return out


def classes(tree):
    return {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}


def members(cls):
    """Public members of a class body: (name, kind)."""
    out = {}
    for n in cls.body:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if n.name.startswith("_"):
                continue
            decos = {d.id if isinstance(d, ast.Name) else getattr(d, "attr", "") for d in n.decorator_list}
            if "property" in decos:
                kind = "property"
            elif "setter" in decos:
                continue
            elif "staticmethod" in decos or "classmethod" in decos:
                kind = "classmethod"
            else:
                kind = "method"
            out.setdefault(n.name, kind)
        elif isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name):
            if not n.target.id.startswith("_"):
                out.setdefault(n.target.id, "attribute")
        elif isinstance(n, ast.Assign):
            for t in n.targets:
                if isinstance(t, ast.Name) and not t.id.startswith("_"):
                    out.setdefault(t.id, "attribute")
    return out


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    major = "13"
    if "--major" in args:
        i = args.index("--major")
        major = args[i + 1]
        del args[i : i + 2]
    src = args[0]
    tmp = None
    if zipfile.is_zipfile(src):
        tmp = tempfile.TemporaryDirectory()
        with zipfile.ZipFile(src) as z:
            z.extractall(tmp.name)
        src = tmp.name
    versioned = os.path.join(src, "cuda", "core", "cu" + major)
    root_pkg = os.path.join(src, "cuda", "core")
    top = stub(src, "cuda.core")
    if top is None:
        print("no cuda/core/__init__.py under " + src, file=sys.stderr)
        return 1
    # Modules whose exports are public, under their public package name.
    public = [("cuda.core", m) for m in star_modules(ast.parse(top), "cuda.core")]
    for sub in ("graph", "texture", "system", "utils"):
        text = stub(versioned, sub) or stub(root_pkg, sub)
        if text is None:
            continue
        tree = ast.parse(text)
        names = literal_all(tree)
        mods = star_modules(tree, "cuda.core." + sub)
        public.append(("cuda.core." + sub, None, names, mods))
    items = {}

    def scan(pkg, module, only=None):
        rel = module[len("cuda.core.") :] if module.startswith("cuda.core.") else module
        text = stub(versioned, rel) or stub(root_pkg, rel)
        if text is None:
            return
        tree = ast.parse(text)
        names = literal_all(tree)
        # A package that re-exports its modules (`from ._buffer import *`): their names.
        for sub in star_modules(tree, module):
            if sub != module and sub.startswith("cuda.core."):
                scan(pkg, sub)
        if only is not None:
            names = [n for n in names if n in only] or names
        cls = classes(tree)
        funcs = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        for name in names:
            if name.startswith("_"):
                continue
            path = pkg + "." + name
            if name in cls:
                items[path] = "class"
                for m, kind in members(cls[name]).items():
                    items[path + "." + m] = kind
            elif name in funcs:
                items[path] = "function"
            else:
                items.setdefault(path, "name")

    for entry in public:
        if len(entry) == 2:
            pkg, module = entry
            scan(pkg, module)
        else:
            pkg, _, names, mods = entry
            for m in mods:
                scan(pkg, m)
            for n in names:
                items.setdefault(pkg + "." + n, "name")
    for path in sorted(items):
        print(path + "\t" + items[path])
    return 0


if __name__ == "__main__":
    sys.exit(main())
