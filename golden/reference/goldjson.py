"""The golden files' JSON layout (golden/SCHEMA.md): pretty-printed with two-space indents, lists of scalars
(and lists of lists of scalars: batches) on one line without spaces, and flat objects that are list elements
(scheduler steps) on one line with ", " / ": " separators. Round-trips every committed case byte for byte."""
import json


def _scalar(v):
    return not isinstance(v, (dict, list))


def _flat_list(v):
    return all(_scalar(x) or (isinstance(x, list) and all(_scalar(y) for y in x)) for x in v)


def _dump(v, indent, out, in_list=False):
    pad = " " * (indent + 2)
    if isinstance(v, dict):
        if not v:
            out.append("{}")
        elif in_list and all(_scalar(x) for x in v.values()):
            out.append(json.dumps(v, separators=(", ", ": ")))
        else:
            out.append("{\n")
            for i, (k, x) in enumerate(v.items()):
                if i:
                    out.append(",\n")
                out.append(pad + json.dumps(k) + ": ")
                _dump(x, indent + 2, out)
            out.append("\n" + " " * indent + "}")
    elif isinstance(v, list):
        if not v or _flat_list(v):
            out.append(json.dumps(v, separators=(",", ":")))
        else:
            out.append("[\n")
            for i, x in enumerate(v):
                if i:
                    out.append(",\n")
                out.append(pad)
                _dump(x, indent + 2, out, in_list=True)
            out.append("\n" + " " * indent + "]")
    else:
        out.append(json.dumps(v))


def dumps(value):
    out = []
    _dump(value, 0, out)
    out.append("\n")
    return "".join(out)
