"""SC112 named-dims-conflict: an op needs two dims to be equal that the code named differently."""

from ..findings import Severity
from .base import Example, RuleSpec

NAMED_DIMS_CONFLICT = RuleSpec(
    code="SC112",
    name="named-dims-conflict",
    severity=Severity.WARNING,
    summary="The op holds only if two dims are equal that the code itself named differently "
            "(T and B unpacked from one shape, jaxtyping's i and j).",
    why="Code that unpacks B, T, C = x.shape or annotates Float[Tensor, 'b t d'] says which "
        "dims are which. An op that needs T == B works in a test where the sizes happen to "
        "agree (a square input, a batch as long as the sequence) and fails, or silently "
        "mixes the wrong dims, as soon as they differ.",
    bad=(Example("import json\n"
                 "import numpy as np\n"
                 "\n"
                 "def scores(q, k):\n"
                 "    B, T, D = q.shape\n"
                 "    assert k.shape == (B, T, D)\n"
                 "    return q @ k  # error: SC112\n"
                 "\n"
                 "config = json.loads('{\"batch\": 2, \"seq\": 4, \"dim\": 8}')\n"
                 "q = k = np.ones((config[\"batch\"], config[\"seq\"], config[\"dim\"]))\n"
                 "s = scores(q, k)\n"),),
    good=(Example("import numpy as np\n"
                  "\n"
                  "def scores(q, k):\n"
                  "    B, T, D = q.shape\n"
                  "    assert k.shape == (B, T, D)\n"
                  "    return q @ k.swapaxes(-2, -1)\n"
                  "\n"
                  "config = {\"batch\": 2, \"seq\": 4, \"dim\": 8}\n"
                  "q = k = np.ones((config[\"batch\"], config[\"seq\"], config[\"dim\"]))\n"
                  "s = scores(q, k)\n"
                  "assert s.shape == (2, 4, 4)\n"),),
    fix="Use the dims the names say (transpose k, reduce with keepdims), or assert the "
        "equality the code relies on (assert T == B) so readers and shapecheck both know it.",
)

RULES = (NAMED_DIMS_CONFLICT,)
