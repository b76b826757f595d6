"""The seed's kernel label, restated from its rule (docs/tilelang.md) as the
tests' reference, since this environment has no TileLang: for each of the
module's functions, in map order, ``attrs["global_symbol"]`` taken as text
(``str()``), else the GlobalVar's ``name_hint``; then "" for no name, the
first name alone, or ``"FIRST +N more"`` for N other distinct names. Any
error while reading the module gives ""."""

from __future__ import annotations


def _function_name(global_var, function):
    attrs = getattr(function, "attrs", None)
    symbol = None if attrs is None else attrs.get("global_symbol")
    if symbol is not None:
        return str(symbol)
    hint = getattr(global_var, "name_hint", None)
    return None if hint is None else str(hint)


def seed_kernel_label(mod) -> str:
    try:
        functions = None if mod is None else getattr(mod, "functions", None)
        distinct = []
        for global_var, function in (functions.items() if functions else ()):
            name = _function_name(global_var, function)
            if name is not None and name not in distinct:
                distinct.append(name)
    except Exception:
        return ""
    if not distinct:
        return ""
    others = len(distinct) - 1
    return distinct[0] if others == 0 else f"{distinct[0]} +{others} more"
