"""Griffe extension for the docs site: Sphinx roles in docstrings become cross-references.

The package's docstrings use reStructuredText roles (``:class:`~streammetrics.InputError```,
``:meth:`bounds```) because ``help()`` and IDEs read them that way. mkdocstrings renders Markdown,
so without this extension the roles show up as raw text. Each role is rewritten, once the package
is loaded, into an mkdocs-autorefs reference:

- the target is resolved the way Python would see it from the docstring's object (its members,
  the members its class inherits, the enclosing classes, then its module's globals), so
  ``:class:`StateError``` in a module that imports it links to ``streammetrics.errors.StateError``;
- a target inside ``streammetrics`` becomes an *optional* autoref: a link when some API page
  documents it (under its public alias or its canonical path), plain code otherwise (private
  helpers, modules);
- a target outside the package (scikit-learn, NumPy, Dask) is plain code, since the site has no
  inventory for them;
- ``~`` shows only the last component, as in Sphinx; functions and methods get ``()``.

It lives with the docs tooling, not in the package: the docstrings stay as they are.
"""

from __future__ import annotations

import html
import re
from typing import Any

import griffe

PACKAGE = "streammetrics"

# :role:`target`, :role:`~target`, :role:`title <target>`, with an optional ``py:`` domain.
ROLE = re.compile(r":(?:py:)?(?P<role>class|meth|func|mod|data|attr|exc|obj|const):`(?P<body>[^`]+)`")
CALLABLE_ROLES = {"meth", "func"}


def _inherited(cls: griffe.Class, name: str) -> str | None:
    """The path of ``name`` as inherited by ``cls``: its most basic definition.

    The base that first declares a method (``Metric.revert``) is the one the API pages document;
    mixins and intermediate bases that override it are implementation details.
    """
    try:
        mro = cls.mro()
    except (griffe.AliasResolutionError, griffe.CyclicAliasError, ValueError):
        return None
    for base in reversed(mro):
        if name in base.members:
            return f"{base.path}.{name}"
    return None


def _resolve_first(obj: griffe.Object, name: str) -> str | None:
    """Resolve one name as Python would from ``obj``'s body: own and inherited members, enclosing
    classes, then the module's globals (never a parent package's names)."""
    scope: griffe.Object | None = obj
    while scope is not None:
        if name in scope.members:
            member = scope.members[name]
            return member.target_path if member.is_alias else member.path
        if scope.is_class:
            found = _inherited(scope, name)
            if found is not None:
                return found
        if scope.is_module:
            return None
        if name == scope.name:
            return scope.path
        scope = scope.parent
    return None


def resolve(obj: griffe.Object, target: str) -> str | None:
    """The full dotted path ``target`` names when written in ``obj``'s docstring, or ``None``."""
    target = target.removesuffix("()")
    if target.startswith("."):
        # A relative module path (``.averaging``): relative to the docstring's package.
        module = obj.module
        package = module if module.is_package else module.parent
        return f"{package.path}{target}" if package is not None else None
    first, _, rest = target.partition(".")
    if first == PACKAGE:
        return target
    head = _resolve_first(obj, first)
    if head is None:
        return None
    return f"{head}.{rest}" if rest else head


def _canonical(collection: griffe.ModulesCollection, path: str) -> str:
    """``path`` with every alias along it followed (an import's target, not where it is used)."""
    try:
        found = collection[path]
    except (KeyError, griffe.AliasResolutionError, griffe.CyclicAliasError):
        return path
    try:
        return found.canonical_path
    except (griffe.AliasResolutionError, griffe.CyclicAliasError):
        return path


def render_role(obj: griffe.Object, match: re.Match[str], collection: griffe.ModulesCollection) -> str:
    """The Markdown (with an inline autoref tag) that replaces one role."""
    role, body = match["role"], match["body"].strip()
    explicit = re.fullmatch(r"(?P<title>.+?)\s*<(?P<target>[^<>]+)>", body)
    if explicit:
        title, target = explicit["title"], explicit["target"]
    else:
        short = body.startswith("~")
        target = body.lstrip("~!")
        title = target.rsplit(".", 1)[-1] if short else target.lstrip(".")
        if role in CALLABLE_ROLES and not title.endswith(")"):
            title += "()"
    path = resolve(obj, target.lstrip("~!"))
    if path is None or path.split(".", 1)[0] != PACKAGE:
        return f"`{title}`"
    path = _canonical(collection, path)
    return f'<autoref identifier="{html.escape(path)}" optional><code>{html.escape(title)}</code></autoref>'


def rewrite(obj: griffe.Object, text: str, collection: griffe.ModulesCollection) -> str:
    """``text`` with every role rendered for ``obj``'s scope."""
    return ROLE.sub(lambda match: render_role(obj, match, collection), text)


class SphinxRoles(griffe.Extension):
    """Rewrite the roles of every docstring of a package once it is fully loaded."""

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        if pkg.name != PACKAGE:
            return
        seen: set[int] = set()
        stack: list[griffe.Object] = [pkg]
        while stack:
            obj = stack.pop()
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            if obj.docstring is not None and ":" in obj.docstring.value:
                obj.docstring.value = rewrite(obj, obj.docstring.value, loader.modules_collection)
            stack.extend(member for member in obj.members.values() if not member.is_alias)
