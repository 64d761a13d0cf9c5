#!/usr/bin/env python3
"""Builds NVIDIA's `cuda.bindings.runtime` page in other Sphinx themes, for the theme tests.

The page's reST source is recovered from the real page (the `nvidia-sphinx-theme` HTML of
`docs-src/nvidia-cuda-bindings-<release>/runtime.html`): each section, intro paragraph, list
and object becomes the reST that Sphinx renders back into the same elements (`py:class`,
`py:function` and `py:attribute` directives with the page's signatures, values and ids; each
docstring, which the page shows verbatim, as a `code-block:: text`; the intros' and members'
paragraphs with their cross-references). Rebuilt in the NVIDIA theme, the 13.4.4 page's
article comes back byte for byte. Sphinx builds that source with each theme of `THEMES`, and
each HTML page is rendered to text the way the corpus's `runtime.txt` was rendered from its
HTML (`render`, which gives back each corpus page's `runtime.txt` byte for byte from its
`runtime.html`: block elements one a line, paragraphs and headings between blank lines,
whitespace collapsed outside `pre`, list items marked, signatures and permalinks as the theme
writes them).

    build.py build PAGE OUT [--objects N]   recover the source, build every theme into OUT
                                            (OUT/<theme>.html and OUT/<theme>.txt)
    build.py source PAGE                    print the recovered source
    build.py render PAGE                    print PAGE (HTML) rendered to text

`--objects N` keeps the first N objects of each shape (the small committed pages: every
section with its intro, and a struct, an enum with its members, a typedef, a constant and a
function of each form). Sphinx and the themes are pinned in `requirements.txt` beside this
file; run this with the interpreter of a virtual environment that has them (`cargo xtask
test` makes one under `target/sphinx-themes/`). Only the standard library is used here.
"""

import html.parser
import os
import re
import shutil
import subprocess
import sys
import tempfile

# Theme name -> the `html_theme` Sphinx is given. `nvidia` rebuilds the page in its own theme:
# the control that the recovered source is the page's.
THEMES = {
    "nvidia": "nvidia_sphinx_theme",
    "rtd": "sphinx_rtd_theme",
    "furo": "furo",
    "alabaster": "alabaster",
}

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}


class Node:
    """An element (tag, attributes, children) or a text node (tag None, text)."""

    def __init__(self, tag, attrs=None, text=None, parent=None):
        self.tag = tag
        self.attrs = dict(attrs or [])
        self.text = text
        self.children = []
        self.parent = parent

    def classes(self):
        return self.attrs.get("class", "").split()

    def has(self, cls):
        return cls in self.classes()

    def elements(self):
        return [c for c in self.children if c.tag is not None]

    def find(self, pred):
        for c in self.children:
            if c.tag is not None:
                if pred(c):
                    return c
                hit = c.find(pred)
                if hit is not None:
                    return hit
        return None

    def all_text(self):
        if self.tag is None:
            return self.text
        return "".join(c.all_text() for c in self.children)


class TreeBuilder(html.parser.HTMLParser):
    """The standard library's tokenizer into a tree; Sphinx's pages are well-formed."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#document")
        self.cur = self.root

    def handle_starttag(self, tag, attrs):
        node = Node(tag, attrs, parent=self.cur)
        self.cur.children.append(node)
        if tag not in VOID:
            self.cur = node

    def handle_startendtag(self, tag, attrs):
        self.cur.children.append(Node(tag, attrs, parent=self.cur))

    def handle_endtag(self, tag):
        n = self.cur
        while n is not None and n.tag != tag:
            n = n.parent
        if n is not None and n.parent is not None:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.children.append(Node(None, text=data, parent=self.cur))


def parse(path):
    b = TreeBuilder()
    with open(path, encoding="utf-8") as f:
        b.feed(f.read())
    b.close()
    return b.root


# --- The page's reST source, recovered --------------------------------------------------------

ADORNMENT = "=-~^\"'"


def escape(text):
    """Plain text as reST that renders back to it: every punctuation mark that could start
    or end inline markup escaped."""
    return re.sub(r"([\\*`_|\[\]<>:])", r"\\\1", text)


def guard_start(text):
    """Escapes a paragraph's first characters where reST would read a list item, an
    enumerator, a comment, a doctest block or a quote attribution."""
    m = re.match(r"^(\(?)([0-9]+|[A-Za-z]|[ivxlcdmIVXLCDM]+|#)([.)])(\s|$)", text)
    if m:
        return text[: m.end(2)] + "\\" + text[m.end(2) :]
    if re.match(r"^([-+*•‣⁃]|\.\.|>>>|--|—)(\s|$)", text):
        return "\\" + text
    return text


def inline(node):
    """The reST of a paragraph's inline content."""
    out = []
    for c in node.children:
        if c.tag is None:
            out.append(escape(c.text))
        elif c.tag == "a" and c.has("reference") and c.has("internal"):
            code = c.find(lambda e: e.tag == "code")
            target = c.attrs.get("title") or c.attrs.get("href", "").lstrip("#")
            label = (code or c).all_text()
            out.append(":py:obj:`%s <%s>`" % (escape_role(label), target))
        elif c.tag == "a" and c.has("external"):
            out.append("`%s <%s>`__" % (escape_role(c.all_text()), c.attrs.get("href", "")))
        elif c.tag == "code" and c.has("xref"):
            out.append(":py:obj:`!%s`" % escape_role(c.all_text()))
        elif c.tag == "code":
            out.append("``%s``" % c.all_text())
        elif c.tag == "strong":
            out.append("**%s**" % inline(c))
        elif c.tag == "em":
            out.append("*%s*" % inline(c))
        elif c.tag == "span":
            out.append(inline(c))
        else:
            raise SystemExit("unhandled inline <%s> in a paragraph" % c.tag)
    return "".join(out)


def escape_role(text):
    return text.replace("\\", "\\\\").replace("`", "\\`").replace("<", "\\<")


def indent(lines, by):
    pad = " " * by
    return [pad + l if l.strip() else "" for l in lines]


def blocks(children, parent=None):
    """The reST lines of a run of block elements (paragraphs, quotes, lists, objects);
    `parent` is the id of the object whose body they are."""
    out = []
    for c in children:
        if c.tag is None:
            if c.text.strip():
                raise SystemExit("text outside a block: %r" % c.text[:80])
            continue
        lines = block(c, parent)
        if lines:
            if out:
                out.append("")
            out.extend(lines)
    return out


def block(el, parent=None):
    if el.tag == "p":
        text = guard_start(inline(el))
        return text.split("\n")
    if el.tag == "blockquote":
        inner = el.elements()
        if len(inner) == 1 and inner[0].tag == "div":
            inner = inner[0].children
        else:
            inner = el.children
        return indent(blocks(inner), 3)
    if el.tag in ("ul", "ol"):
        start = int(el.attrs.get("start", "1"))
        out = []
        for k, li in enumerate(e for e in el.elements() if e.tag == "li"):
            mark = "- " if el.tag == "ul" else "%d. " % (start + k)
            body = blocks(li.children)
            if not body:
                body = [""]
            first = mark + body[0]
            out.append(first.rstrip())
            out.extend(indent(body[1:], len(mark)))
            if not el.has("simple"):
                out.append("")
        while out and not out[-1]:
            out.pop()
        return out
    if el.tag == "div" and el.has("highlight-text"):
        pre = el.find(lambda e: e.tag == "pre")
        text = pre.all_text() if pre is not None else ""
        lines = text.split("\n")
        while lines and not lines[-1].strip():
            lines.pop()
        if not any(l.strip() for l in lines):
            return []
        return [".. code-block:: text", ""] + indent(lines, 3)
    if el.tag == "dl" and el.has("py"):
        return obj(el, parent)
    if el.tag == "section":
        return section(el)
    raise SystemExit("unhandled block <%s class=%r>" % (el.tag, el.attrs.get("class")))


def signature(dt):
    """(prename, name, parameters or None, the property after the name such as `= 3`,
    whether the parameters are one a line) of a `dt.sig`."""
    prename = name = ""
    params = None
    prop = ""
    multi = False
    for c in dt.elements():
        if c.has("sig-prename"):
            prename = c.all_text()
        elif c.has("sig-name"):
            name = c.all_text()
        elif c.has("sig-paren") and c.all_text() == "(":
            params = []
        elif c.has("sig-param"):
            params.append(" ".join(c.all_text().split()))
        elif c.tag == "dl":
            multi = True
            for dd in c.elements():
                for p in dd.elements():
                    if p.has("sig-param"):
                        params.append(" ".join(p.all_text().split()))
        elif c.tag == "em" and c.has("property"):
            t = " ".join(c.all_text().split())
            if name:
                prop = t
    return prename, name, params, prop, multi


def obj(dl, parent):
    kind = [k for k in dl.classes() if k != "py"][0]
    directive = {"class": "py:class", "function": "py:function", "attribute": "py:attribute",
                 "data": "py:data", "method": "py:method", "property": "py:property"}[kind]
    dt = next(e for e in dl.elements() if e.tag == "dt")
    dd = next((e for e in dl.elements() if e.tag == "dd"), None)
    prename, name, params, prop, multi = signature(dt)
    ident = dt.attrs.get("id", "")
    full = prename + name
    # The module the id has beyond the name shown (`:module:`); none in another object's body,
    # whose id is the parent's and the name.
    module = ""
    if parent is None and ident.endswith("." + full):
        module = ident[: -len(full) - 1]
    elif parent is not None and ident != parent + "." + full:
        raise SystemExit("nested object %r is not named from its parent %r" % (ident, parent))
    sig = full
    if params is not None:
        sig += "(" + ", ".join(params) + ")"
    out = [".. %s:: %s" % (directive, sig)]
    if module:
        out.append("   :module: %s" % module)
    if prop.startswith("= "):
        out.append("   :value: %s" % prop[2:])
    elif prop.startswith(": "):
        out.append("   :type: %s" % prop[2:])
    if params is not None and not multi:
        out.append("   :single-line-parameter-list:")
    body = blocks(dd.children, ident) if dd is not None else []
    if body:
        out.append("")
        out.extend(indent(body, 3))
    return out


def title(h):
    """A heading's text without its permalink."""
    return "".join(c.all_text() for c in h.children if not (c.tag == "a" and c.has("headerlink"))).strip()


def section(sec):
    out = []
    rest = []
    for c in sec.children:
        if c.tag and re.fullmatch(r"h[1-6]", c.tag):
            t = title(c)
            depth = int(c.tag[1]) - 1
            out += [escape(t), ADORNMENT[depth] * max(len(t), 3)]
        else:
            rest.append(c)
    body = blocks(rest)
    if body:
        out.append("")
        out.extend(body)
    return out


def shape(dl):
    """The form of an object's signature: its kind, whether it shows a value, its first
    parameter (`value`, `_ptr`, `*args`: enum, struct, typedef class) and whether its
    parameters are one a line."""
    dt = next((e for e in dl.elements() if e.tag == "dt"), None)
    if dt is None:
        return tuple(dl.classes())
    _, _, params, prop, multi = signature(dt)
    first = re.split(r"[\s:=]", params[0])[-1] if params else None
    return (tuple(dl.classes()), prop[:1], first if dl.has("class") else None, multi)


def keep_objects(sec, n, seen=None):
    """Keeps the first `n` objects of each shape on the page (and in each object's body);
    every section, heading and intro stays."""
    seen = {} if seen is None else seen
    kept = []
    for c in sec.children:
        if c.tag == "section":
            keep_objects(c, n, seen)
        if c.tag == "dl" and c.has("py"):
            key = shape(c)
            seen[key] = seen.get(key, 0) + 1
            if seen[key] > n:
                continue
            dd = next((e for e in c.elements() if e.tag == "dd"), None)
            if dd is not None:
                keep_objects(dd, n)
        kept.append(c)
    sec.children = kept


CONF = '''\
# Written by codegen/tests/themes/build.py: the conf.py of the page's recovered source.
project = "cuda.bindings"
extensions = []
html_theme = {theme!r}
html_permalinks = True
python_maximum_signature_line_length = 1
html_show_sourcelink = False
html_copy_source = False
html_sidebars = {{}}
copyright = "NVIDIA Corporation"
'''


def source(page, n):
    root = parse(page)
    article = root.find(lambda e: e.tag == "article")
    top = next(e for e in article.elements() if e.tag == "section")
    if n is not None:
        keep_objects(top, n)
    return "\n".join(section(top)) + "\n"


# --- Text rendering of an HTML page --------------------------------------------------------

BLOCK = {"address", "article", "aside", "blockquote", "dd", "details", "div", "dl", "dt",
         "figure", "footer", "header", "li", "main", "nav", "ol", "p", "pre", "section",
         "table", "tr", "ul", "h1", "h2", "h3", "h4", "h5", "h6"}
# Followed by a blank line.
SPACED = {"p", "h1", "h2", "h3", "h4", "h5", "h6"}


def main_content(root):
    return (root.find(lambda e: e.tag == "article")
            or root.find(lambda e: e.attrs.get("role") == "main")
            or root.find(lambda e: e.tag == "div" and e.has("body")))


class Renderer:
    """Text of a page's main content: block elements start a line, paragraphs and headings
    end with a blank line, whitespace is collapsed outside `pre`."""

    def __init__(self):
        self.lines = [""]
        self.blank_wanted = False
        # Open lists: [tag, items so far]; the mark of the list item whose text comes next.
        self.lists = []
        self.mark = None

    def newline(self):
        if self.lines[-1].strip():
            self.lines.append("")

    def write(self, text):
        if self.blank_wanted and self.lines[-1] == "":
            if len(self.lines) > 1 and self.lines[-2] != "":
                self.lines.append("")
            self.blank_wanted = False
        elif self.blank_wanted:
            self.blank_wanted = False
        if self.mark is not None and self.lines[-1] == "":
            self.lines[-1] = self.mark
            self.mark = None
        self.lines[-1] += text

    def walk(self, n, pre=False):
        if n.tag is None:
            if pre:
                parts = n.text.split("\n")
                for k, p in enumerate(parts):
                    if k:
                        self.lines.append("")
                    if p:
                        self.write(p)
                return
            t = re.sub(r"\s+", " ", n.text)
            if self.lines[-1] == "" or self.lines[-1].endswith(" "):
                t = t.lstrip()
            if t:
                self.write(t)
            return
        if n.tag in ("script", "style", "template"):
            return
        if n.tag in BLOCK:
            self.newline()
        if n.tag in SPACED:
            self.blank_wanted = True
        if n.tag in ("ul", "ol"):
            self.lists.append([n.tag, 0])
        if n.tag == "li" and self.lists:
            self.lists[-1][1] += 1
            tag, k = self.lists[-1]
            self.mark = "  " * len(self.lists) + ("• " if tag == "ul" else "%d. " % k)
        for c in n.children:
            self.walk(c, pre or n.tag == "pre")
        if n.tag in ("ul", "ol"):
            self.lists.pop()
        if n.tag in BLOCK:
            self.lines[-1] = self.lines[-1].rstrip(" ")
            self.newline()
        if n.tag in SPACED:
            self.blank_wanted = True


def render(page):
    root = parse(page)
    main = main_content(root)
    r = Renderer()
    r.walk(main)
    lines = [l.rstrip() for l in r.lines]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


# --- Driver ---------------------------------------------------------------------------------------


def build(page, out, n):
    """Writes `OUT/<theme>.html` and `OUT/<theme>.txt` for every theme of `THEMES`."""
    rst = source(page, n)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    with tempfile.TemporaryDirectory() as work:
        # One Sphinx process per theme, all at once; each writes its own folder.
        runs = []
        for name, theme in THEMES.items():
            src = os.path.join(work, "src-" + name)
            os.makedirs(src)
            with open(os.path.join(src, "runtime.rst"), "w", encoding="utf-8") as f:
                f.write(rst)
            with open(os.path.join(src, "conf.py"), "w", encoding="utf-8") as f:
                f.write(CONF.format(theme=theme))
            dest = os.path.join(work, "html-" + name)
            cmd = [sys.executable, "-m", "sphinx", "-Q", "-b", "html", "-E",
                   "-D", "master_doc=runtime", src, dest]
            runs.append((name, dest, cmd, subprocess.Popen(cmd)))
        failed = [cmd for _, _, cmd, p in runs if p.wait() != 0]
        if failed:
            raise SystemExit("Sphinx failed: %s" % failed)
        for name, dest, _, _ in runs:
            html_page = os.path.join(dest, "runtime.html")
            shutil.copyfile(html_page, os.path.join(out, name + ".html"))
            with open(os.path.join(out, name + ".txt"), "w", encoding="utf-8") as f:
                f.write(render(html_page))


def main(argv):
    if len(argv) >= 2 and argv[0] == "render":
        sys.stdout.write(render(argv[1]))
        return 0
    if len(argv) >= 3 and argv[0] == "build":
        n = None
        if len(argv) == 5 and argv[3] == "--objects":
            n = int(argv[4])
        build(argv[1], argv[2], n)
        return 0
    if len(argv) >= 2 and argv[0] == "source":
        sys.stdout.write(source(argv[1], None))
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
